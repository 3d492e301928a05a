// The solver strategy of analyze's report (report/solver_strategy.hpp): the multiplier
// method's modelled flops against a dense boolean elimination of K's pattern (independent of the
// elimination-tree count), embedding's against the four-bar's count by hand, both positive, the
// cheaper one recommended, and report.json's "solver" objects equal to the library's numbers.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "skograph/model/dynamics.hpp"
#include "skograph/report/solver_strategy.hpp"
#include "skograph/rigid/constraint_jacobian.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/kkt_system.hpp"
#include "skograph/sparse/sparse_assembly.hpp"
#include "support/cli_support.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

// Column counts (diagonal included) of L by eliminating a dense boolean copy of the pattern.
std::vector<long> dense_column_counts(const Eigen::SparseMatrix<double>& matrix) {
  const Eigen::Index n = matrix.rows();
  Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic> linked =
      Eigen::Matrix<bool, Eigen::Dynamic, Eigen::Dynamic>::Constant(n, n, false);
  for (int c = 0; c < matrix.outerSize(); ++c)
    for (Eigen::SparseMatrix<double>::InnerIterator it(matrix, c); it; ++it)
      linked(it.row(), c) = linked(c, it.row()) = true;
  std::vector<long> counts(static_cast<std::size_t>(n), 1);
  for (Eigen::Index j = 0; j < n; ++j) {
    std::vector<Eigen::Index> below;
    for (Eigen::Index i = j + 1; i < n; ++i)
      if (linked(i, j)) below.push_back(i);
    counts[static_cast<std::size_t>(j)] += static_cast<long>(below.size());
    for (const Eigen::Index a : below)
      for (const Eigen::Index b : below) linked(a, b) = true;
  }
  return counts;
}

double column_flops(long count) {
  const double c = static_cast<double>(count - 1);
  return c * c + 4 * c + 1;
}

TEST(SolverStrategy, CostsFollowTheirModelsAndTheReportShowsThem) {
  for (const std::string name : {"fourbar", "fourbar_chain", "stewart_platform", "delta_robot",
                                 "geared_links", "suspension"}) {
    const Model loaded = load_model(cli_test::example_model(name + ".yaml"));
    const ClosedChainModel& model = *loaded.closed_chain();
    ClosedChainData data(model);
    Eigen::VectorXd q = Eigen::VectorXd::Zero(model.dof_count());
    assemble(model, data, q);
    update_closed_chain(model, data, q, Eigen::VectorXd::Zero(model.dof_count()));
    const std::vector<report::AggregateCost> costs = report::solver_costs(model, data, q);
    ASSERT_EQ(static_cast<int>(costs.size()), model.aggregate_count()) << name;

    // The reference: K in the KKT order, eliminated densely; M in its canonical order likewise.
    ConstraintJacobian constraints;
    constraint_jacobian(model, data, q, Eigen::VectorXd::Zero(model.dof_count()), constraints);
    const SkoStructure& structure = *model.tree().structure();
    const Eigen::SparseMatrix<double> mass = pattern_matrix(mass_matrix_pattern(structure));
    const std::vector<int> canonical = canonical_dof_order(structure);
    const KktSystem kkt(mass, canonical, constraints.jacobian);
    const std::vector<long> kkt_counts = dense_column_counts(kkt.matrix());
    const int n = model.dof_count();
    std::vector<int> aggregate_of_dof(static_cast<std::size_t>(n), -1);
    for (int s = 0; s < model.aggregate_count(); ++s)
      for (const int dof : model.aggregate_dofs(s)) aggregate_of_dof[dof] = s;
    std::vector<double> multipliers(costs.size(), 0.0);
    for (std::size_t j = 0; j < kkt.order().size(); ++j) {
      const int unknown = kkt.order()[j];
      const int s = unknown < n ? aggregate_of_dof[unknown]
                                : constraints.rows[static_cast<std::size_t>(unknown - n)].aggregate;
      if (s >= 0) multipliers[static_cast<std::size_t>(s)] += column_flops(kkt_counts[j]);
    }
    for (std::size_t s = 0; s < costs.size(); ++s) {
      const report::AggregateCost& cost = costs[s];
      EXPECT_DOUBLE_EQ(cost.multiplier_flops, multipliers[s]) << name << " " << s;
      EXPECT_GT(cost.embedding_flops, 0.0) << name << " " << s;
      EXPECT_GT(cost.multiplier_flops, 0.0) << name << " " << s;
      EXPECT_EQ(std::string(cost.recommended),
                cost.multiplier_flops < cost.embedding_flops ? "multipliers" : "embedding");
    }

    // The geared four-bar by hand: 4 dofs, 6 rows of rank 3, 1 independent: QR 2*6*4*4 - 2/3*64,
    // X_S 2*6*3*1 + 9, X* M X 2*16 + 2*4, Cholesky and solve 1/3 + 2: 710/3 flops.
    if (name == "fourbar") {
      EXPECT_NEAR(costs[0].embedding_flops, 710.0 / 3, 1e-9);
    }
    // report.json carries the same numbers.
    const auto dir = io_test::scratch_dir() / ("strategy_" + name);
    std::filesystem::remove_all(dir);
    const cli_test::CliRun run = cli_test::run_cli(
        "analyze " + cli_test::example_model(name + ".yaml") + " --out " + dir.string());
    ASSERT_EQ(run.status, 0) << run.err;
    std::ifstream file(dir / "report.json");
    const nlohmann::json report = nlohmann::json::parse(file);
    const nlohmann::json& aggregates = report["embedding"]["aggregates"];
    ASSERT_EQ(aggregates.size(), costs.size()) << name;
    for (std::size_t s = 0; s < costs.size(); ++s) {
      EXPECT_DOUBLE_EQ(aggregates[s]["solver"]["multiplier_flops"].get<double>(),
                       costs[s].multiplier_flops);
      EXPECT_EQ(aggregates[s]["solver"]["recommended"], costs[s].recommended);
    }
    std::filesystem::remove_all(dir);
  }
}

}  // namespace
}  // namespace skograph
