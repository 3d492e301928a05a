// load_model (model/model.hpp), the one loading call of the library, on every example
// model: what it computes in the file's dof order is exactly what `skograph dynamics --json`
// reports for the same file and state (the documented meaning), and it obeys the equations of
// motion (M qdd + C = tau for trees; X* (M qdd + C - tau) = 0 and qdd = X qdd_R + Xdot qd_R for
// closed chains).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "skograph/model/dynamics.hpp"
#include "skograph/io/state_reader.hpp"
#include "support/cli_support.hpp"

namespace skograph {
namespace {

using Json = nlohmann::json;
using cli_test::matrix_of;
using cli_test::vector_of;

double scale(const Eigen::MatrixXd& m) {
  return 1.0 + m.cwiseAbs().maxCoeff();
}

struct Example {
  const char* model;
  const char* state;
};

void PrintTo(const Example& example, std::ostream* out) {
  *out << example.model;
}

class LibraryModel : public testing::TestWithParam<Example> {};

TEST_P(LibraryModel, AgreesWithTheCommandLineAndTheEquationsOfMotion) {
  const std::string file = cli_test::example_model(GetParam().model);
  const std::string state_file = cli_test::example_model(GetParam().state);
  const cli_test::CliRun run =
      cli_test::run_cli("dynamics " + file + " --state " + state_file + " --json");
  ASSERT_EQ(run.status, 0) << run.err;
  const Json report = Json::parse(run.out);

  const Model model = load_model(file);
  ModelData data(model);
  ASSERT_EQ(model.dof_names(), report["dofs"].get<std::vector<std::string>>());
  // The state file's vectors in the file's order (the reader maps names to the model's order).
  const MechanismState state = read_state_file(state_file, model.mechanism());
  const DofOrder& order = model.dof_order();
  const Eigen::VectorXd q = order.vector(state.q), qd = order.vector(state.qd),
                        tau = order.vector(state.tau), qdd_in = order.vector(state.qdd);

  const ClosedState closed = close_state(model, data, q, qd);
  EXPECT_LT((closed.q - vector_of(report["q"])).norm(), 1e-12);
  EXPECT_LT((closed.qd - vector_of(report["qd"])).norm(), 1e-12);
  const Eigen::VectorXd qdd = forward_dynamics(model, data, q, qd, tau, state.gravity);
  const Eigen::VectorXd id = inverse_dynamics(model, data, q, qd, qdd_in, state.gravity);
  const Eigen::MatrixXd M = mass_matrix(model, data, q);
  const Eigen::VectorXd C = bias_forces(model, data, q, qd, state.gravity);
  EXPECT_LT((qdd - vector_of(report["qdd"])).norm(), 1e-10 * scale(qdd));
  EXPECT_LT((id - vector_of(report["tau"])).norm(), 1e-10 * scale(id));
  EXPECT_LT((M - matrix_of(report["M"])).norm(), 1e-12 * scale(M));
  EXPECT_LT((C - vector_of(report["bias"])).norm(), 1e-12 * scale(C));

  const ConstraintForces forces = constraint_forces(model, data, q, qd, tau, state.gravity);
  if (!model.is_closed_chain()) {
    EXPECT_FALSE(report.contains("independent"));
    EXPECT_TRUE(forces.loop.empty() && forces.coupling.empty());
    EXPECT_LT((M * qdd + C - tau).norm(), 1e-9 * scale(M) * scale(qdd));
    EXPECT_LT((M * qdd_in + C - id).norm(), 1e-9 * scale(M) * scale(qdd_in));
    return;
  }
  EXPECT_EQ(data.independent, report["independent"].get<std::vector<std::string>>());
  const Eigen::MatrixXd X = embedding_matrix(model, data, q);
  EXPECT_LT((X - matrix_of(report["X"])).norm(), 1e-10 * scale(X));
  const Eigen::MatrixXd MR = reduced_mass_matrix(model, data, q);
  EXPECT_LT((MR - matrix_of(report["M_reduced"])).norm(), 1e-10 * scale(MR));
  EXPECT_LT((X.transpose() * M * X - MR).norm(), 1e-10 * scale(MR));
  // Forward dynamics: the reduced equations X* (M qdd + C - tau) = 0 hold.
  EXPECT_LT((X.transpose() * (M * qdd + C - tau)).norm(), 1e-8 * scale(M) * scale(qdd));
  // The loop and coupling forces are the program's, by name.
  ASSERT_EQ(forces.loop.size(), report["loop_forces"].size());
  for (std::size_t l = 0; l < forces.loop.size(); ++l) {
    const Eigen::VectorXd expected =
        vector_of(report["loop_forces"][model.mechanism().loops[l].name]);
    EXPECT_LT((forces.loop[l] - expected).norm(), 1e-12 * scale(expected));
  }
  ASSERT_EQ(forces.coupling.size(), report["coupling_forces"].size());
  for (std::size_t c = 0; c < forces.coupling.size(); ++c) {
    const Eigen::VectorXd expected =
        vector_of(report["coupling_forces"][model.mechanism().couplings[c].name]);
    EXPECT_LT((forces.coupling[c] - expected).norm(), 1e-12 * scale(expected));
  }
  // Inverse dynamics: actuator forces, zero at the dependent dofs, that give back qdd_in's
  // independent entries through forward dynamics.
  const Eigen::VectorXd again = forward_dynamics(model, data, q, qd, id, state.gravity);
  for (std::size_t k = 0; k < model.dof_names().size(); ++k) {
    const std::string& name = model.dof_names()[k];
    const auto at = static_cast<Eigen::Index>(k);
    if (std::find(data.independent.begin(), data.independent.end(), name) == data.independent.end())
      EXPECT_EQ(id(at), 0.0) << name;
    else
      EXPECT_NEAR(again(at), qdd_in(at), 1e-10 * scale(qdd_in)) << name;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Examples, LibraryModel,
    testing::Values(Example{"arm7.urdf", "arm7_state.json"},
                    Example{"space_arm.urdf", "space_arm_state.json"},
                    Example{"humanoid.yaml", "humanoid_state.json"},
                    Example{"humanoid.xml", "humanoid_state.json"},
                    Example{"fourbar.yaml", "fourbar_state.json"},
                    Example{"fourbar_chain.yaml", "fourbar_chain_state.json"},
                    Example{"fourbar_internal_cut.sdf", "fourbar_internal_cut_state.json"},
                    Example{"geared_links.yaml", "geared_links_state.json"},
                    Example{"delta_robot.yaml", "delta_robot_state.json"},
                    Example{"stewart_platform.yaml", "stewart_platform_state.json"},
                    Example{"suspension.yaml", "suspension_state.json"}),
    [](const testing::TestParamInfo<Example>& param) {
      std::string name = param.param.model;
      for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
      return name;
    });

TEST(LibraryModel, MasslessFlangeIsFusedAndStrictRefusesMasslessSubtrees) {
  // arm7.urdf ends in a massless fixed flange: RigidBodyModel(read_mechanism_file(...)) throws on
  // it; load_model fuses it away.
  const Model model = load_model(cli_test::example_model("arm7.urdf"));
  EXPECT_EQ(model.dof_count(), 7);
  EXPECT_FALSE(model.is_closed_chain());
  const std::string file = io_test::write_file(
      "massless_tip.urdf",
      "<robot name='r'><link name='base'/><link name='a'><inertial><mass value='1'/>"
      "<inertia ixx='1' ixy='0' ixz='0' iyy='1' iyz='0' izz='1'/></inertial></link>"
      "<link name='tip'/><joint name='j1' type='continuous'><parent link='base'/>"
      "<child link='a'/></joint><joint name='j2' type='continuous'><parent link='a'/>"
      "<child link='tip'/></joint></robot>");
  const Model lenient = load_model(file);
  ASSERT_EQ(lenient.warnings().size(), 1u);
  EXPECT_NE(lenient.warnings()[0].find("'j2'"), std::string::npos);
  ReadOptions strict;
  strict.strict = true;
  EXPECT_THROW(load_model(file, strict), InputError);
}

TEST(LibraryModel, WrongSizesAreRefused) {
  const Model model = load_model(cli_test::example_model("fourbar_chain.yaml"));
  ModelData data(model);
  EXPECT_THROW(mass_matrix(model, data, Eigen::VectorXd::Zero(model.dof_count() + 1)),
               std::invalid_argument);
}

}  // namespace
}  // namespace skograph
