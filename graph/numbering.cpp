#include "skograph/graph/numbering.hpp"

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

}  // namespace skograph
