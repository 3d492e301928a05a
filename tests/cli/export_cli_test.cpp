// `skograph export` through the real binary: the Matrix Market files read back and checked against
// the rigid layer's own mass matrix (fixed-size composite-rigid-body algorithm, not the sparse
// path), L L' = P M P' from the written factor and permutation, A (I - E) = I from the written
// operators; closed chains' reduced M_R against X* M X; and every kind of bad input (exit status 2,
// one stderr line, no file left behind).
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>
#include "skograph/io/mechanism_file.hpp"
#include "skograph/io/state_reader.hpp"

#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/fixed_body_fusion.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/sparse/matrix_market.hpp"
#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::scratch_dir;

using cli_test::CliRun;
using cli_test::expect_one_line_error;

CliRun run_export(const std::string& arguments) {
  return cli_test::run_cli("export " + arguments);
}

std::string example(const std::string& name) {
  return cli_test::example_model(name);
}

// A fresh, empty output folder.
std::filesystem::path output_dir(const std::string& name) {
  const auto dir = scratch_dir() / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

TEST(ExportCli, FilesOfEveryTreeExampleAgreeWithTheRigidMassMatrix) {
  for (const std::string name : {"arm7", "humanoid", "space_arm"}) {
    const std::string model_file = example(name + (name == "humanoid" ? ".yaml" : ".urdf"));
    const std::string state_file = example(name + "_state.json");
    const auto dir = output_dir("export_" + name);
    const std::string m = (dir / "M.mtx").string(), l = (dir / "L.mtx").string(),
                      p = (dir / "P.txt").string(), e = (dir / "E.mtx").string(),
                      a = (dir / "A.mtx").string();
    const CliRun run =
        run_export(model_file + " --state " + state_file + " --mass " + m + " --factor " + l +
                   " --perm " + p + " --kernel " + e + " --resolvent " + a);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_EQ(run.err, "");
    EXPECT_NE(run.out.find("(fill 0)"), std::string::npos) << run.out;  // canonical: no fill

    // Reference: the rigid layer's fixed-size CRBA at the same state.
    const RigidBodyModel model(fuse_fixed_bodies(read_mechanism_file(model_file)));
    const MechanismState state = read_state_file(state_file, model.mechanism());
    RigidBodyData data(model);
    const Eigen::MatrixXd reference = mass_matrix(model, data, state.q);
    const Eigen::MatrixXd mass(read_matrix_market(m));
    ASSERT_EQ(mass.rows(), reference.rows()) << name;
    EXPECT_LT((mass - reference).norm() / reference.norm(), 1e-12) << name;

    // L L' = P M P' with row i of L being dof perm[i].
    const Eigen::MatrixXd factor(read_matrix_market(l));
    const std::vector<int> perm = read_permutation(p);
    Eigen::MatrixXd permuted(mass.rows(), mass.cols());
    for (Eigen::Index j = 0; j < mass.cols(); ++j)
      for (Eigen::Index i = 0; i < mass.rows(); ++i) permuted(i, j) = mass(perm[i], perm[j]);
    EXPECT_TRUE(factor.isLowerTriangular());
    EXPECT_LT((factor * factor.transpose() - permuted).norm() / permuted.norm(), 1e-12) << name;

    // A = (I - E_A)^-1 (part I Lemma 4).
    const Eigen::MatrixXd kernel(read_matrix_market(e)), resolvent(read_matrix_market(a));
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(kernel.rows(), kernel.cols());
    EXPECT_LT((resolvent * (identity - kernel) - identity).norm(), 1e-10) << name;

    // The header mmread expects, sizes, 1-based indices.
    std::ifstream in(m);
    std::string header;
    std::getline(in, header);
    EXPECT_EQ(header, "%%MatrixMarket matrix coordinate real symmetric");
  }
}

TEST(ExportCli, ClosedChainsExportTheReducedMassMatrix) {
  // M_R = X* M_tree X (constraint-embedding §6-7) from the tree's own mass matrix, against the
  // export's sparse mass matrix of the embedded model, for every closed-chain example.
  for (const std::string name : {"fourbar", "fourbar_chain", "fourbar_internal_cut", "geared_links",
                                 "stewart_platform", "suspension"}) {
    const std::string model_file = example(name + ".yaml");
    const std::string state_file = example(name + "_state.json");
    const auto dir = output_dir("export_closed_" + name);
    const std::string m = (dir / "M.mtx").string(), l = (dir / "L.mtx").string(),
                      p = (dir / "P.txt").string();
    const CliRun run = run_export(model_file + " --state " + state_file + " --mass " + m +
                                  " --factor " + l + " --perm " + p);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("(fill 0)"), std::string::npos) << run.out;

    const ClosedChainModel model(fuse_fixed_bodies(read_mechanism_file(model_file)));
    ClosedChainData data(model);
    const MechanismState state = read_state_file(state_file, model.mechanism());
    Eigen::VectorXd q = state.q;
    close_positions(model, data, q);
    update_closed_chain(model, data, q, Eigen::VectorXd::Zero(model.dof_count()));
    RigidBodyData tree_data(model.tree());
    const Eigen::MatrixXd tree_mass = mass_matrix(model.tree(), tree_data, q);
    const Eigen::MatrixXd reference = data.X.transpose() * tree_mass * data.X;

    const Eigen::MatrixXd mass(read_matrix_market(m));
    ASSERT_EQ(mass.rows(), reference.rows()) << name;
    EXPECT_LT((mass - reference).norm() / reference.norm(), 1e-10) << name;
    const Eigen::MatrixXd factor(read_matrix_market(l));
    const std::vector<int> perm = read_permutation(p);
    Eigen::MatrixXd permuted(mass.rows(), mass.cols());
    for (Eigen::Index j = 0; j < mass.cols(); ++j)
      for (Eigen::Index i = 0; i < mass.rows(); ++i) permuted(i, j) = mass(perm[i], perm[j]);
    EXPECT_LT((factor * factor.transpose() - permuted).norm() / permuted.norm(), 1e-12) << name;
  }
}

TEST(ExportCli, OrderingsReportTheirFill) {
  const auto dir = output_dir("export_orderings");
  const std::string m = (dir / "M.mtx").string(), l = (dir / "L.mtx").string();
  const CliRun root_first = run_export(example("humanoid.yaml") + " --mass " + m + " --factor " +
                                       l + " --ordering root-first");
  ASSERT_EQ(root_first.status, 0) << root_first.err;
  EXPECT_EQ(root_first.out.find("(fill 0)"), std::string::npos) << root_first.out;  // it fills
  // The written factor has more entries than tril M, and still factors M.
  const Eigen::SparseMatrix<double> mass = read_matrix_market(m), factor = read_matrix_market(l);
  EXPECT_GT(factor.nonZeros(), (mass.nonZeros() + mass.rows()) / 2);
}

TEST(ExportCli, UnwritableOutputLeavesNoFileBehind) {
  const auto dir = output_dir("export_unwritable");
  const std::string l = (dir / "L.mtx").string();
  const std::string bad = (dir / "missing_dir" / "M.mtx").string();
  const CliRun run = run_export(example("arm7.urdf") + " --mass " + bad + " --factor " + l);
  expect_one_line_error(run, bad);
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // neither L.mtx nor a temporary
}

TEST(ExportCli, BadUsageAndInputAreOneLineWithStatusTwo) {
  const auto dir = output_dir("export_bad");
  const std::string m = (dir / "M.mtx").string();
  expect_one_line_error(run_export(example("arm7.urdf") + " --mass " + m + " --bogus"),
                        "unknown option '--bogus'");
  expect_one_line_error(run_export(example("arm7.urdf")), "missing --mass");
  expect_one_line_error(run_export(example("arm7.urdf") + " --mass " + m + " --ordering rcm"),
                        "unknown ordering 'rcm'");
  expect_one_line_error(run_export((dir / "nope.urdf").string() + " --mass " + m),
                        (dir / "nope.urdf").string());
  expect_one_line_error(run_export(example("arm7.urdf") + " --state " +
                                   (dir / "nope.json").string() + " --mass " + m),
                        (dir / "nope.json").string());
  EXPECT_TRUE(std::filesystem::is_empty(dir));
}

// G, its labels and Gdot qd against the embedding `dynamics --json` reports at the same
// closed state: G X = 0 and G qd = 0 (X spans the closed motions), rows(G) + columns(X) = dofs
// (G keeps exactly the independent rows), labels one per row.
TEST(ExportCli, ConstraintsAnnihilateTheClosedMotions) {
  for (const std::string name :
       {"fourbar", "fourbar_chain", "geared_links", "stewart_platform", "delta_robot"}) {
    const std::string model_file = example(name + ".yaml");
    const std::string state_file = example(name + "_state.json");
    const auto dir = output_dir("export_constraints_" + name);
    const std::string g = (dir / "G.mtx").string(), labels = (dir / "G.txt").string(),
                      b = (dir / "b.mtx").string();
    const CliRun run = run_export(model_file + " --state " + state_file + " --constraints " + g +
                                  " --constraint-labels " + labels + " --constraint-bias " + b);
    ASSERT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("rank-revealing factorization keeps"), std::string::npos) << run.out;
    const CliRun dynamics =
        cli_test::run_cli("dynamics " + model_file + " --state " + state_file + " --json");
    ASSERT_EQ(dynamics.status, 0) << dynamics.err;
    const auto report = nlohmann::json::parse(dynamics.out);
    const std::size_t n = report["q"].size();
    Eigen::VectorXd qd(static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) qd(static_cast<Eigen::Index>(i)) = report["qd"][i];
    const std::size_t columns = report["independent"].size();
    Eigen::MatrixXd x(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(columns));
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < columns; ++j)
        x(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = report["X"][i][j];

    const Eigen::MatrixXd jacobian(read_matrix_market(g));
    ASSERT_EQ(static_cast<std::size_t>(jacobian.cols()), n) << name;
    EXPECT_EQ(static_cast<std::size_t>(jacobian.rows()) + columns, n) << name;
    EXPECT_EQ(Eigen::FullPivLU<Eigen::MatrixXd>(jacobian).rank(), jacobian.rows()) << name;
    EXPECT_LT((jacobian * x).cwiseAbs().maxCoeff(), 1e-9 * (1 + x.cwiseAbs().maxCoeff())) << name;
    EXPECT_LT((jacobian * qd).cwiseAbs().maxCoeff(), 1e-9 * (1 + qd.cwiseAbs().maxCoeff())) << name;
    std::ifstream label_file(labels);
    int lines = 0;
    for (std::string line; std::getline(label_file, line); ++lines)
      EXPECT_TRUE(line.rfind("loop '", 0) == 0 || line.rfind("coupling '", 0) == 0) << line;
    EXPECT_EQ(lines, jacobian.rows()) << name;
    EXPECT_EQ(Eigen::MatrixXd(read_matrix_market(b)).rows(), jacobian.rows()) << name;
  }
  expect_one_line_error(run_export(example("fourbar.yaml") + " --constraints"),
                        "--constraints needs a file");
  const auto dir = output_dir("export_kkt_bad");
  const std::string k = (dir / "K.mtx").string();
  for (const std::string value : {"-1", "x", "nan", "1e400"})
    expect_one_line_error(
        run_export(example("fourbar.yaml") + " --kkt " + k + " --kkt-eps " + value),
        "--kkt-eps must be a number >= 0, not '" + value + "'");
  expect_one_line_error(run_export(example("fourbar.yaml") + " --kkt " + k + " --kkt-rhs " +
                                   (dir / "missing" / "r.mtx").string()),
                        (dir / "missing" / "r.mtx").string());
  EXPECT_TRUE(std::filesystem::is_empty(dir));  // nothing half-written
}

// `dynamics --solver multipliers` gives embedding's qdd (the multipliers themselves are held to
// the loop forces in tests/rigid/multiplier_dynamics_test.cpp), and the default output keeps its
// keys.
TEST(ExportCli, DynamicsSolversAgree) {
  // Every example model with a state file (examples/models/NAME_state.json) that is a closed
  // chain.
  int closed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(example(""))) {
    const std::filesystem::path path = entry.path();
    const std::string extension = path.extension().string();
    if (extension != ".yaml" && extension != ".urdf" && extension != ".xml" && extension != ".sdf")
      continue;
    const std::string state = example(path.stem().string() + "_state.json");
    if (!std::filesystem::exists(state)) continue;
    const std::string name = path.filename().string();
    const std::string common = "dynamics " + path.string() + " --state " + state + " --json";
    const CliRun embedding = cli_test::run_cli(common);
    ASSERT_EQ(embedding.status, 0) << embedding.err;
    const auto a = nlohmann::json::parse(embedding.out);
    if (!a.contains("independent")) continue;  // a tree
    ++closed;
    const CliRun multipliers = cli_test::run_cli(common + " --solver multipliers");
    if (name == "fourbar_flexible.yaml") {  // flexible links in a loop: refused in one line
      EXPECT_EQ(multipliers.status, 2);
      EXPECT_NE(multipliers.err.find("do not take flexible links"), std::string::npos);
      continue;
    }
    ASSERT_EQ(multipliers.status, 0) << multipliers.err;
    const auto b = nlohmann::json::parse(multipliers.out);
    EXPECT_FALSE(a.contains("solver"));  // the default output keeps its documented keys
    EXPECT_EQ(b["solver"], "multipliers");
    ASSERT_TRUE(b.contains("multipliers"));
    double scale = 1.0;
    for (const double v : a["qdd"]) scale = std::max(scale, std::abs(v));
    for (std::size_t i = 0; i < a["qdd"].size(); ++i)
      EXPECT_NEAR(a["qdd"][i].get<double>(), b["qdd"][i].get<double>(), 1e-10 * scale) << name;
  }
  EXPECT_GE(closed, 12);  // the closed examples of docs/closed-chains.md with their states
  expect_one_line_error(
      cli_test::run_cli("dynamics " + example("fourbar.yaml") + " --solver lagrange"),
      "unknown --solver 'lagrange'");
}

}  // namespace
}  // namespace skograph
