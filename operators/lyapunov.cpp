#include "skograph/operators/lyapunov.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "skograph/operators/bwa.hpp"

namespace skograph {
namespace {

void check_compatible(const BwaMatrix& a, const BlockDiagonal& x, const BwaMatrix& b,
                      const char* what) {
  const bool same_forest = a.forest().parents().size() == b.forest().parents().size() &&
                           std::equal(a.forest().parents().begin(), a.forest().parents().end(),
                                      b.forest().parents().begin());
  bool same_dims = same_forest && x.count() == a.size();
  for (int k = 0; same_dims && k < a.size(); ++k)
    same_dims = a.layout().dim(k) == b.layout().dim(k) && x.layout().dim(k) == a.layout().dim(k);
  if (!same_dims)
    throw std::invalid_argument(std::string(what) +
                                ": operators and X are not over the same structure");
}

void check_lyapunov_workspace(const BwaMatrix& a, const LyapunovWorkspace& workspace,
                              const char* what) {
  bool same = workspace.diagonal.count() == a.size();
  for (int k = 0; same && k < a.size(); ++k)
    same = workspace.diagonal.layout().dim(k) == a.layout().dim(k);
  if (!same) throw std::invalid_argument(std::string(what) + ": workspace of another structure");
}

}  // namespace

LyapunovWorkspace::LyapunovWorkspace(const SkoStructure& structure)
    : diagonal(structure.node),
      scratch(static_cast<std::size_t>(structure.node.max_dim()) * structure.node.max_dim()) {}

// Part II Lemma 5, Eq. 23-24 (base-to-tips scatter).
const BlockDiagonal& backward_lyapunov_diagonal(const BwaMatrix& a, const BlockDiagonal& x,
                                                const BwaMatrix& b, LyapunovWorkspace& workspace) {
  check_compatible(a, x, b, "backward_lyapunov_diagonal");
  check_lyapunov_workspace(a, workspace, "backward_lyapunov_diagonal");
  const Forest& forest = a.forest();
  const BlockLayout& layout = a.layout();
  BlockDiagonal& y = workspace.diagonal;
  const auto order = forest.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = forest.parent(k);
    auto yk = y.block(k);
    yk = x.block(k);
    if (p == Forest::kNone) continue;
    // Y(parent) B(parent, k): m_parent x m_k, in the scratch buffer.
    Eigen::Map<Eigen::MatrixXd> yb(workspace.scratch.data(), layout.dim(p), layout.dim(k));
    yb.noalias() = y.block(p) * b.weight(k);
    yk.noalias() += a.weight(k).transpose() * yb;
  }
  return y;
}

// Part II Eq. 25 / Algorithm 4.3; all four cases are A*(k, i) Y(k) B(k, j) with k the closest
// common ancestor, A(k, k) = B(k, k) = I.
Eigen::MatrixXd backward_lyapunov_element(const BwaMatrix& a, const BwaMatrix& b,
                                          const BlockDiagonal& y, int i, int j) {
  const int k = a.forest().closest_common_ancestor(i, j);
  if (k == Forest::kNone) return Eigen::MatrixXd::Zero(a.layout().dim(i), a.layout().dim(j));
  if (i == j) return y.block(i);
  if (k == j) return resolvent_block(a, j, i).transpose() * y.block(j);                 // case 2
  if (k == i) return y.block(i) * resolvent_block(b, i, j);                             // case 3
  return resolvent_block(a, k, i).transpose() * y.block(k) * resolvent_block(b, k, j);  // case 4
}

// Part II Lemma 5: Z = A* X B, every block by Eq. 25.
Eigen::MatrixXd backward_lyapunov_dense(const BwaMatrix& a, const BlockDiagonal& x,
                                        const BwaMatrix& b) {
  LyapunovWorkspace workspace(a.structure());
  const BlockDiagonal& y = backward_lyapunov_diagonal(a, x, b, workspace);
  const BlockLayout& layout = a.layout();
  Eigen::MatrixXd z(layout.total(), layout.total());
  for (int i = 0; i < a.size(); ++i)
    for (int j = 0; j < a.size(); ++j)
      z.block(layout.offset(i), layout.offset(j), layout.dim(i), layout.dim(j)) =
          backward_lyapunov_element(a, b, y, i, j);
  return z;
}

// Part II Lemma 3, Eq. 13-14 (tips-to-base gather); Algorithm 4.1 when A = B and X = M.
const BlockDiagonal& forward_lyapunov_diagonal(const BwaMatrix& a, const BlockDiagonal& x,
                                               const BwaMatrix& b, LyapunovWorkspace& workspace) {
  check_compatible(a, x, b, "forward_lyapunov_diagonal");
  check_lyapunov_workspace(a, workspace, "forward_lyapunov_diagonal");
  const Forest& forest = a.forest();
  const BlockLayout& layout = a.layout();
  BlockDiagonal& y = workspace.diagonal;
  for (const int k : forest.post_order()) {
    auto yk = y.block(k);
    yk = x.block(k);
    for (const int j : forest.children(k)) {
      // A(k, j) Y(j): m_k x m_j, in the scratch buffer.
      Eigen::Map<Eigen::MatrixXd> ay(workspace.scratch.data(), layout.dim(k), layout.dim(j));
      ay.noalias() = a.weight(j) * y.block(j);
      yk.noalias() += ay * b.weight(j).transpose();
    }
  }
  return y;
}

// Part II Lemma 3, Eq. 13-14.
BlockDiagonal forward_lyapunov_diagonal(const BwaMatrix& a, const BlockDiagonal& x,
                                        const BwaMatrix& b) {
  LyapunovWorkspace workspace(a.structure());
  forward_lyapunov_diagonal(a, x, b, workspace);
  return std::move(workspace.diagonal);
}

// Part II Eq. 15.
Eigen::MatrixXd forward_lyapunov_element(const BwaMatrix& a, const BwaMatrix& b,
                                         const BlockDiagonal& y, int i, int j) {
  const Forest& forest = a.forest();
  if (forest.is_ancestor_or_self(i, j)) return resolvent_block(a, i, j) * y.block(j);
  if (forest.is_ancestor(j, i)) return y.block(i) * resolvent_block(b, j, i).transpose();
  return Eigen::MatrixXd::Zero(a.layout().dim(i), a.layout().dim(j));
}

// Part II Lemma 3: Z = A X B*, every block by Eq. 15.
Eigen::MatrixXd forward_lyapunov_dense(const BwaMatrix& a, const BlockDiagonal& x,
                                       const BwaMatrix& b) {
  LyapunovWorkspace workspace(a.structure());
  const BlockDiagonal& y = forward_lyapunov_diagonal(a, x, b, workspace);
  const BlockLayout& layout = a.layout();
  Eigen::MatrixXd z(layout.total(), layout.total());
  for (int i = 0; i < a.size(); ++i)
    for (int j = 0; j < a.size(); ++j)
      z.block(layout.offset(i), layout.offset(j), layout.dim(i), layout.dim(j)) =
          forward_lyapunov_element(a, b, y, i, j);
  return z;
}

// The block-diagonal M of part II section 2.1.
BlockDiagonal node_inertias(const SkoModel& model) {
  BlockDiagonal result(model.structure().node);
  for (int k = 0; k < model.size(); ++k) result.block(k) = model.inertia(k);
  return result;
}

}  // namespace skograph
