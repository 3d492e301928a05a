// `--base LINK` on the model commands (free-flying paper Appendix A): the state file
// stays in the file's coordinates, the output names the new dofs, and what does not depend on the
// coordinates does not change: every frame's pose, velocity and acceleration, the centre of mass,
// the energies, the joints' accelerations under the same joint torques, and the operational-space
// inertia of every link (Section 4). Bad bases are one line, exit status 2.
#include <gtest/gtest.h>

#include <Eigen/Core>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/cli_support.hpp"

namespace {

using cli_test::example_model;
using cli_test::expect_one_line_error;
using cli_test::run_cli;
using Json = nlohmann::json;

Eigen::MatrixXd matrix_or_column_of(const Json& value) {
  if (!value.is_array() || value.empty() || !value[0].is_array()) {
    Eigen::MatrixXd v(static_cast<Eigen::Index>(value.size()), 1);
    for (Eigen::Index i = 0; i < v.rows(); ++i) v(i, 0) = value[i].get<double>();
    return v;
  }
  Eigen::MatrixXd m(static_cast<Eigen::Index>(value.size()),
                    static_cast<Eigen::Index>(value[0].size()));
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) m(i, j) = value[i][j].get<double>();
  return m;
}

double difference(const Json& a, const Json& b) {
  const Eigen::MatrixXd x = matrix_or_column_of(a), y = matrix_or_column_of(b);
  if (x.rows() != y.rows() || x.cols() != y.cols()) return 1e300;
  return (x - y).cwiseAbs().maxCoeff() / (1.0 + y.cwiseAbs().maxCoeff());
}

Json json_of(const std::string& arguments) {
  const auto run = run_cli(arguments);
  EXPECT_EQ(run.status, 0) << arguments << ": " << run.err;
  return run.status == 0 ? Json::parse(run.out) : Json();
}

const std::string kModel = example_model("space_arm.urdf");
const std::string kState = " --state " + example_model("space_arm_state.json");

TEST(BaseChangeCli, KinematicsAreTheSameUnderEveryBase) {
  const Json file = json_of("kinematics " + kModel + kState + " --frames all --json");
  for (const char* base : {"s_link1", "s_link3", "s_link6"}) {
    SCOPED_TRACE(base);
    const Json rebased =
        json_of("kinematics " + kModel + kState + " --frames all --json --base " + base);
    ASSERT_TRUE(rebased.contains("frames"));
    EXPECT_EQ(rebased["dofs"][0], std::string(base) + "_floating:0");
    EXPECT_EQ(rebased["dofs"].size(), file["dofs"].size());
    for (const auto& [name, frame] : file["frames"].items())
      for (const char* key : {"R", "p", "v", "a"})
        EXPECT_LT(difference(rebased["frames"][name][key], frame[key]), 1e-12) << name << key;
    EXPECT_LT(difference(rebased["com"], file["com"]), 1e-12);
    EXPECT_NEAR(rebased["kinetic_energy"].get<double>(), file["kinetic_energy"].get<double>(),
                1e-12 * (1.0 + file["kinetic_energy"].get<double>()));
    EXPECT_NEAR(rebased["potential_energy"].get<double>(), file["potential_energy"].get<double>(),
                1e-9);
  }
}

TEST(BaseChangeCli, JointAccelerationsAndOperationalSpacesDoNotDependOnTheBase) {
  const Json file = json_of("dynamics " + kModel + kState + " --json");
  const Json rebased = json_of("dynamics " + kModel + kState + " --json --base s_link4");
  ASSERT_EQ(rebased["dofs"].size(), file["dofs"].size());
  // The state's torques act on the arm's joints only: the same torques in both coordinate sets,
  // so the joints' accelerations (shared coordinates) agree.
  for (std::size_t i = 6; i < file["dofs"].size(); ++i) {
    EXPECT_EQ(rebased["dofs"][i], file["dofs"][i]);
    EXPECT_NEAR(rebased["qdd"][i].get<double>(), file["qdd"][i].get<double>(), 1e-9)
        << file["dofs"][i];
  }
  const std::string frames = " --frames bus,s_link2,s_link6 --json";
  const Json spaces = json_of("operators " + kModel + kState + frames);
  const Json rebased_spaces = json_of("operators " + kModel + kState + frames + " --base s_link4");
  for (const char* frame : {"bus", "s_link2", "s_link6"}) {
    EXPECT_LT(
        difference(rebased_spaces["operational_space"][frame], spaces["operational_space"][frame]),
        1e-10)
        << frame;
    EXPECT_LT(difference(rebased_spaces["operational_space_compliance"][frame],
                         spaces["operational_space_compliance"][frame]),
              1e-10)
        << frame;
  }
}

// assemble --base --out writes the state file in the file's coordinates (what --state reads
// under any base): read back, it gives every frame the motion the original state gives.
TEST(BaseChangeCli, AssembledStatesAreWrittenInTheFilesCoordinates) {
  const std::string written = (skograph::io_test::scratch_dir() / "rebased_state.json").string();
  const auto run = run_cli("assemble " + kModel + kState + " --base s_link4 --out " + written);
  ASSERT_EQ(run.status, 0) << run.err;
  const Json file = json_of("kinematics " + kModel + kState + " --frames all --json");
  for (const char* base : {"", " --base s_link4", " --base s_link6"}) {
    SCOPED_TRACE(base);
    const Json read_back =
        json_of("kinematics " + kModel + " --state " + written + " --frames all --json" + base);
    ASSERT_TRUE(read_back.contains("frames"));
    for (const auto& [name, frame] : file["frames"].items())
      for (const char* key : {"R", "p", "v"})
        EXPECT_LT(difference(read_back["frames"][name][key], frame[key]), 1e-12) << name << key;
  }
  std::filesystem::remove(written);
}

// analyze and render read --state in the file's coordinates too, as the model commands do.
TEST(BaseChangeCli, AnalyzeReadsTheStateInTheFilesCoordinates) {
  const std::string folder = (skograph::io_test::scratch_dir() / "rebased_analysis").string();
  const auto run = run_cli("analyze " + kModel + kState + " --base s_link4 --out " + folder);
  EXPECT_EQ(run.status, 0) << run.err;
  std::filesystem::remove_all(folder);
}

TEST(BaseChangeCli, BadBasesAreOneLine) {
  expect_one_line_error(run_cli("dynamics " + kModel + " --base nowhere"), "has no link 'nowhere'");
  expect_one_line_error(run_cli("kinematics " + example_model("arm7.urdf") + " --base link3"),
                        "not by a floating joint");
  expect_one_line_error(run_cli("operators " + kModel + " --base"), "--base needs a link name");
  expect_one_line_error(run_cli("dynamics " + kModel + " --base ''"), "--base needs a link name");
  expect_one_line_error(run_cli("dynamics " + kModel + " --base bus --base s_link1"),
                        "--base given twice");
  expect_one_line_error(run_cli("graph " + std::string(SKOGRAPH_SOURCE_DIR) +
                                "/examples/graphs/fourbar.dot" + " --base x"),
                        "--base needs a model file");
}

}  // namespace
