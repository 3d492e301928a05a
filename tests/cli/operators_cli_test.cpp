// `skograph operators`: its JSON against `skograph dynamics --json` on the same model
// and state (M^-1 M = I, log det M from M's Cholesky factor, M = F D F*, the D blocks covering the
// dofs in order; closed chains against M_reduced over the independent dofs), the operational-space
// compliance and inertia inverse to each other, and the bad-input contract.
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "support/cli_support.hpp"
#include "support/matrix_difference.hpp"

namespace {

using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::run_cli;
using Json = nlohmann::json;

using cli_test::matrix_of;
using skograph::testing_support::difference;

// The operators of MODEL at STATE against dynamics --json's matrix `mass_key` over `dofs_key`.
void check_against_dynamics(const std::string& model, const std::string& state,
                            const std::string& frame, const char* mass_key, const char* dofs_key) {
  const auto ops_run =
      run_cli("operators " + model + " --state " + state + " --frames " + frame + " --json");
  ASSERT_EQ(ops_run.status, 0) << ops_run.err;
  const auto dyn_run = run_cli("dynamics " + model + " --state " + state + " --json");
  ASSERT_EQ(dyn_run.status, 0) << dyn_run.err;
  const Json ops = Json::parse(ops_run.out), dyn = Json::parse(dyn_run.out);
  for (const char* key : {"dofs", "log_det_M", "M_inverse", "innovations_factor",
                          "innovations_inverse", "D", "operational_space"})
    EXPECT_TRUE(ops.contains(key)) << key;
  EXPECT_EQ(ops["dofs"], dyn[dofs_key]);
  const Eigen::MatrixXd mass = matrix_of(dyn[mass_key]);
  const auto n = mass.rows();
  ASSERT_EQ(static_cast<Eigen::Index>(ops["dofs"].size()), n);
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
  EXPECT_LT(difference(matrix_of(ops["M_inverse"]) * mass, identity), 1e-8);
  const Eigen::LLT<Eigen::MatrixXd> cholesky(mass);
  ASSERT_EQ(cholesky.info(), Eigen::Success);
  const Eigen::VectorXd diagonal = Eigen::MatrixXd(cholesky.matrixL()).diagonal();
  EXPECT_NEAR(ops["log_det_M"].get<double>(), 2.0 * diagonal.array().log().sum(), 1e-8);
  // M = F D F* with D from the "D" blocks placed at their dofs ("D_dofs").
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(n, n);
  Eigen::Index placed = 0;
  ASSERT_EQ(ops["D"].size(), ops["D_dofs"].size());
  for (std::size_t b = 0; b < ops["D"].size(); ++b) {
    const Eigen::MatrixXd block = matrix_of(ops["D"][b]);
    std::vector<Eigen::Index> at;
    for (const Json& name : ops["D_dofs"][b]) {
      const auto found = std::find(ops["dofs"].begin(), ops["dofs"].end(), name);
      ASSERT_NE(found, ops["dofs"].end());
      at.push_back(found - ops["dofs"].begin());
    }
    ASSERT_EQ(static_cast<Eigen::Index>(at.size()), block.rows());
    for (Eigen::Index i = 0; i < block.rows(); ++i)
      for (Eigen::Index j = 0; j < block.cols(); ++j) d(at[i], at[j]) = block(i, j);
    placed += block.rows();
  }
  EXPECT_EQ(placed, n);
  const Eigen::MatrixXd f = matrix_of(ops["innovations_factor"]);
  EXPECT_LT(difference(f * d * f.transpose(), mass), 1e-8);
  EXPECT_LT(difference(f * matrix_of(ops["innovations_inverse"]), identity), 1e-8);
  const Eigen::MatrixXd compliance = matrix_of(ops["operational_space_compliance"][frame]);
  ASSERT_EQ(compliance.rows(), 6);
  if (!ops["operational_space"][frame].is_null()) {
    EXPECT_LT(difference(matrix_of(ops["operational_space"][frame]) * compliance,
                         Eigen::MatrixXd::Identity(6, 6)),
              1e-6);
  }
}

TEST(OperatorsCli, TreeOperatorsAgreeWithTheDynamicsMassMatrix) {
  check_against_dynamics(example_model("arm7.urdf"), example_model("arm7_state.json"), "link7", "M",
                         "dofs");
}

TEST(OperatorsCli, ClosedChainOperatorsAreThoseOfTheReducedMassMatrix) {
  check_against_dynamics(example_model("stewart_platform.yaml"),
                         example_model("stewart_platform_state.json"), "platform", "M_reduced",
                         "independent");
}

TEST(OperatorsCli, TheStewartPlatformHasAnOperationalSpaceInertia) {
  const auto run =
      run_cli("operators " + example_model("stewart_platform.yaml") + " --state " +
              example_model("stewart_platform_state.json") + " --frames platform --json");
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_FALSE(Json::parse(run.out)["operational_space"]["platform"].is_null());
}

TEST(OperatorsCli, TextNamesWhatItPrints) {
  const auto run = run_cli("operators " + example_model("fourbar.yaml") + " --frames coupler");
  ASSERT_EQ(run.status, 0) << run.err;
  for (const char* part : {"log det M", "M^-1", "innovations factor", "D = H P H*",
                           "operational space of coupler", "compliance"})
    EXPECT_NE(run.out.find(part), std::string::npos) << part;
}

TEST(OperatorsCli, ASingularMassMatrixIsOneLine) {
  const std::string urdf = skograph::io_test::write_file("massless_tip.urdf", R"(<robot name="r">
  <link name="base"/>
  <link name="a"><inertial><mass value="1"/><inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
  <link name="b"/>
  <joint name="j1" type="revolute"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
  <joint name="j2" type="revolute"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/><limit lower="-1" upper="1" effort="1" velocity="1"/></joint>
</robot>)");
  expect_one_line_error(run_cli("operators " + urdf), "'j2' moves no mass");
}

TEST(OperatorsCli, BadInputIsOneLine) {
  expect_one_line_error(run_cli("operators " + example_model("arm7.urdf") + " --frames nowhere"),
                        "nowhere");
  expect_one_line_error(run_cli("operators " + example_model("arm7.urdf") + " --bogus"), "--bogus");
  expect_one_line_error(run_cli("operators"), "MODEL");
  expect_one_line_error(run_cli("operators /nonexistent.urdf"), "/nonexistent.urdf");
}

}  // namespace
