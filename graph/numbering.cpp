#include "skograph/graph/numbering.hpp"

#include <stdexcept>
#include <string>

namespace skograph {

Permutation canonical_numbering(const Forest& forest) {
  const int n = forest.size();
  const auto order = forest.level_order();
  Permutation number(n);
  for (int i = 0; i < n; ++i) number[order[i]] = n - 1 - i;
  return number;
}

Permutation strictly_canonical_numbering(const Forest& forest) {
  Permutation number(forest.size());
  for (int k = 0; k < forest.size(); ++k) number[k] = forest.post_index(k);
  return number;
}

bool is_permutation(const Permutation& number) {
  std::vector<char> used(number.size(), 0);
  for (int i : number) {
    if (i < 0 || i >= static_cast<int>(number.size()) || used[i]) return false;
    used[i] = 1;
  }
  return true;
}

bool is_canonical(const Forest& forest, const Permutation& number) {
  if (static_cast<int>(number.size()) != forest.size() || !is_permutation(number)) return false;
  for (int k = 0; k < forest.size(); ++k)
    if (forest.parent(k) != Forest::kNone && number[forest.parent(k)] <= number[k]) return false;
  return true;
}

bool is_strictly_canonical(const Forest& forest, const Permutation& number) {
  if (!is_canonical(forest, number)) return false;
  // Within a serial segment, consecutive nodes parent -> child carry consecutive numbers.
  for (int k = 0; k < forest.size(); ++k) {
    const int p = forest.parent(k);
    if (p != Forest::kNone && forest.segment_of(p) == forest.segment_of(k) &&
        number[p] != number[k] + 1)
      return false;
  }
  return true;
}

Permutation inverse(const Permutation& number) {
  Permutation node_at(number.size());
  for (size_t k = 0; k < number.size(); ++k) node_at[number[k]] = static_cast<int>(k);
  return node_at;
}

Forest renumber(const Forest& forest, const Permutation& number) {
  std::vector<int> parent(forest.size(), Forest::kNone);
  for (int k = 0; k < forest.size(); ++k)
    if (forest.parent(k) != Forest::kNone) parent[number[k]] = number[forest.parent(k)];
  return Forest(std::move(parent));
}

Eigen::SparseMatrix<double> permutation_matrix(const Permutation& number) {
  const int n = static_cast<int>(number.size());
  Eigen::SparseMatrix<double> t(n, n);
  t.reserve(Eigen::VectorXi::Ones(n));
  for (int k = 0; k < n; ++k) t.insert(number[k], k) = 1.0;
  t.makeCompressed();
  return t;
}

Eigen::SparseMatrix<double> adjacency_matrix(const Forest& forest) {
  const int n = forest.size();
  Eigen::SparseMatrix<double> s(n, n);
  s.reserve(Eigen::VectorXi::Ones(n));
  for (int k = 0; k < n; ++k)
    if (forest.parent(k) != Forest::kNone) s.insert(forest.parent(k), k) = 1.0;
  s.makeCompressed();
  return s;
}

// Part I Eq. 2: A(i, j) = 1 for each edge i -> j.
Eigen::SparseMatrix<double> adjacency_matrix(const Digraph& graph) {
  const int n = graph.node_count();
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(graph.edges().size());
  for (const auto& [from, to] : graph.edges()) entries.emplace_back(from, to, 1.0);
  Eigen::SparseMatrix<double> a(n, n);
  // Parallel edges: one entry of 1, not their count.
  a.setFromTriplets(entries.begin(), entries.end(), [](double, double) { return 1.0; });
  return a;
}

// Part I Eq. 12: the weight of edge i -> j at block (i, j).
Eigen::SparseMatrix<double> bwa_matrix(const Digraph& graph, const std::vector<int>& dims,
                                       const std::vector<Eigen::MatrixXd>& weights) {
  const int n = graph.node_count();
  if (static_cast<int>(dims.size()) != n || weights.size() != graph.edges().size())
    throw std::invalid_argument("bwa_matrix: one dimension per node and one weight per edge");
  std::vector<int> offset(static_cast<std::size_t>(n) + 1, 0);
  for (int k = 0; k < n; ++k) {
    if (dims[static_cast<std::size_t>(k)] < 0)
      throw std::invalid_argument("bwa_matrix: a negative dimension");
    offset[static_cast<std::size_t>(k) + 1] =
        offset[static_cast<std::size_t>(k)] + dims[static_cast<std::size_t>(k)];
  }
  std::vector<Eigen::Triplet<double>> entries;
  for (std::size_t e = 0; e < weights.size(); ++e) {
    const auto [from, to] = graph.edges()[e];
    const Eigen::MatrixXd& w = weights[e];
    if (w.rows() != dims[static_cast<std::size_t>(from)] ||
        w.cols() != dims[static_cast<std::size_t>(to)])
      throw std::invalid_argument("bwa_matrix: weight " + std::to_string(e + 1) + " is " +
                                  std::to_string(w.rows()) + " x " + std::to_string(w.cols()) +
                                  ", its edge's blocks " +
                                  std::to_string(dims[static_cast<std::size_t>(from)]) + " x " +
                                  std::to_string(dims[static_cast<std::size_t>(to)]));
    for (Eigen::Index c = 0; c < w.cols(); ++c)
      for (Eigen::Index r = 0; r < w.rows(); ++r)
        if (w(r, c) != 0.0)
          entries.emplace_back(offset[static_cast<std::size_t>(from)] + static_cast<int>(r),
                               offset[static_cast<std::size_t>(to)] + static_cast<int>(c), w(r, c));
  }
  Eigen::SparseMatrix<double> bwa(offset.back(), offset.back());
  bwa.setFromTriplets(entries.begin(), entries.end());
  return bwa;
}

}  // namespace skograph
