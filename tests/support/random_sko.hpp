// Random SKO models and dense references built straight from the definitions (test support).
//
// The dense references never use skograph's recursions: E_A is assembled block by block from
// part I Eq. 13, A = (I - E_A)^-1 is a dense LU inverse, and the mass matrix is the operator
// product H A M A* H* of part II Eq. 2. They are the independent reference every O(N) recursion
// is checked against.
#pragma once

#include <Eigen/Dense>
#include <memory>
#include <random>
#include <vector>

#include "skograph/operators/sko_model.hpp"
#include "support/random_graphs.hpp"

namespace skograph::testing_support {

struct RandomSkoOptions {
  int nodes = 20;
  int trees = 1;    // base nodes of the forest
  int min_dim = 1;  // node weight dimension m_k in [min_dim, max_dim]
  int max_dim = 9;
  bool singular_weights = true;  // make some weights rank deficient
};

inline Eigen::MatrixXd random_matrix(int rows, int cols, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd m(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) m(i, j) = u(rng);
  return m;
}

inline Eigen::MatrixXd random_spd(int n, std::mt19937& rng) {
  const Eigen::MatrixXd b = random_matrix(n, n, rng);
  return b * b.transpose() + 0.5 * Eigen::MatrixXd::Identity(n, n);
}

// A random SKO model: random forest in a random numbering, non-uniform dims, non-square and
// (sometimes) singular weights, full-row-rank H (r_k in 0..m_k), SPD M.
inline SkoModel random_sko_model(const RandomSkoOptions& options, std::mt19937& rng) {
  std::vector<int> parent = random_forest_parents(options.nodes, rng, options.trees);
  std::vector<int> dims(options.nodes), hinge(options.nodes);
  for (int k = 0; k < options.nodes; ++k) {
    dims[k] = options.min_dim + static_cast<int>(rng() % (options.max_dim - options.min_dim + 1));
    hinge[k] = static_cast<int>(rng() % (dims[k] + 1));
    if (hinge[k] == 0 && rng() % 2) hinge[k] = 1;  // mostly actuated hinges, some 0-dof welds
  }
  auto structure = std::make_shared<const SkoStructure>(Forest(parent), dims, hinge);
  SkoModel model(structure);
  for (int k = 0; k < options.nodes; ++k) {
    const int p = parent[k];
    if (p != Forest::kNone) {
      Eigen::MatrixXd w = random_matrix(dims[p], dims[k], rng);
      if (options.singular_weights && rng() % 4 == 0 && std::min(dims[p], dims[k]) > 1) {
        // rank one less than full
        Eigen::JacobiSVD<Eigen::MatrixXd> svd(w, Eigen::ComputeFullU | Eigen::ComputeFullV);
        Eigen::VectorXd s = svd.singularValues();
        s(s.size() - 1) = 0.0;
        Eigen::MatrixXd sigma = Eigen::MatrixXd::Zero(dims[p], dims[k]);
        for (int i = 0; i < s.size(); ++i) sigma(i, i) = s(i);
        w = svd.matrixU() * sigma * svd.matrixV().transpose();
      }
      model.weight(k) = w;
    }
    // Full row rank H: rows of a random orthogonal-ish matrix.
    if (hinge[k] > 0) {
      Eigen::HouseholderQR<Eigen::MatrixXd> qr(random_matrix(dims[k], dims[k], rng));
      const Eigen::MatrixXd q = qr.householderQ();
      model.hinge_map(k) = q.topRows(hinge[k]) * (1.0 + 0.5 * static_cast<double>(rng() % 3));
    }
    model.inertia(k) = random_spd(dims[k], rng);
  }
  return model;
}

// Dense references from the definitions.
inline Eigen::MatrixXd dense_bwa(const BwaMatrix& bwa) {  // any BWA matrix, part I Eq. 13
  const BlockLayout& node = bwa.layout();
  Eigen::MatrixXd e = Eigen::MatrixXd::Zero(node.total(), node.total());
  for (int k = 0; k < bwa.size(); ++k) {
    const int p = bwa.forest().parent(k);
    if (p != Forest::kNone)
      e.block(node.offset(p), node.offset(k), node.dim(p), node.dim(k)) = bwa.weight(k);
  }
  return e;
}

inline Eigen::MatrixXd dense_kernel(const SkoModel& model) {
  return dense_bwa(model.kernel());
}  // E_A

inline Eigen::MatrixXd dense_resolvent(const SkoModel& model) {  // A = (I - E_A)^-1
  const Eigen::MatrixXd e = dense_kernel(model);
  return (Eigen::MatrixXd::Identity(e.rows(), e.cols()) - e).inverse();
}

inline Eigen::MatrixXd dense_hinge_map(const SkoModel& model) {  // H = diag(H(k))
  const SkoStructure& s = model.structure();
  Eigen::MatrixXd h = Eigen::MatrixXd::Zero(s.hinge.total(), s.node.total());
  for (int k = 0; k < model.size(); ++k)
    h.block(s.hinge.offset(k), s.node.offset(k), s.hinge.dim(k), s.node.dim(k)) =
        model.hinge_map(k);
  return h;
}

inline Eigen::MatrixXd dense_node_inertia(const SkoModel& model) {  // M = diag(M(k))
  const BlockLayout& node = model.structure().node;
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(node.total(), node.total());
  for (int k = 0; k < model.size(); ++k)
    m.block(node.offset(k), node.offset(k), node.dim(k), node.dim(k)) = model.inertia(k);
  return m;
}

inline Eigen::MatrixXd dense_mass_matrix(const SkoModel& model) {  // H A M A* H*, part II Eq. 2
  const Eigen::MatrixXd h = dense_hinge_map(model), a = dense_resolvent(model);
  return h * a * dense_node_inertia(model) * a.transpose() * h.transpose();
}

inline double relative_error(const Eigen::MatrixXd& computed, const Eigen::MatrixXd& reference) {
  const double scale = std::max(1.0, reference.norm());
  return (computed - reference).norm() / scale;
}

}  // namespace skograph::testing_support
