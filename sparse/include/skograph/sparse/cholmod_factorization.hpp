// Sparse Cholesky factorization M = P' L L' P of the joint-space mass matrix with SuiteSparse
// CHOLMOD, with a symbolic / numeric split: the analysis (ordering, elimination tree, pattern of L)
// is done once from the topology's pattern (mass_matrix_pattern), the numeric factorization is
// repeated for every configuration (same pattern, new numbers).
//
//   CholmodFactorization chol(model.structure(), MassOrdering::kCanonical);   // analyze once
//   chol.factorize(sparse_mass_matrix(model));                                 // per configuration
//   Eigen::VectorXd x = chol.solve(b);                                         // M x = b
//
// Orderings (the fill-in of L is the subject of part II section 7 and part I section 5):
//   canonical   the forest's depth-first post-order (strictly canonical, children before parents,
//               part I section 2) expanded to the hinge dofs of each node. Eliminating a node
//               leaves only its ancestors as neighbours, and those are already pairwise related,
//               so L has no fill-in: nnz(L) = nnz(tril M) on every tree and forest.
//   root-first  the canonical order reversed (parents before children): fills L.
//   amd, metis  CHOLMOD's own AMD / METIS nested-dissection orderings. METIS may be missing from a
//               CHOLMOD build: the constructor then throws OrderingUnavailable.
// The factor is simplicial LL' (pitfalls.md: supernodal factors store explicit zeros), analysed
// with cholmod_analyze_p, one method and no postordering for the given orderings.
#pragma once

#include <Eigen/Core>
#include <Eigen/SparseCore>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "skograph/graph/error.hpp"
#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/bwa_matrix.hpp"
#include "skograph/operators/elimination_order.hpp"
#include "skograph/operators/segment_sparsity.hpp"

struct cholmod_common_struct;
struct cholmod_sparse_struct;
struct cholmod_factor_struct;

namespace skograph {

enum class MassOrdering { kCanonical, kRootFirst, kAmd, kMetis };
// L L* (positive definite matrices: M) or L D L* with unit L (symmetric indefinite matrices
// whose pivots in the given order are nonzero, as the KKT system's: sparse/kkt_system.hpp); no
// pivoting in either.
enum class FactorKind { kCholesky, kLdl };

// "canonical", "root-first", "amd", "metis".
const char* ordering_name(MassOrdering ordering);
std::optional<MassOrdering> parse_ordering(std::string_view name);

// The ordering is not compiled into this CHOLMOD (METIS in some builds; graph/error.hpp).
class OrderingUnavailable : public Error {
 public:
  using Error::Error;
};
// A factorization that meets a zero or negative pivot throws SingularMassMatrixError
// (operators/articulated_body.hpp): M is not positive definite at this configuration.
using NotPositiveDefinite [[deprecated("use SingularMassMatrixError")]] = SingularMassMatrixError;

// canonical_dof_order: operators/elimination_order.hpp (included).

// RAII owners of CHOLMOD objects. The common is started in the constructor and finished in the
// destructor; sparse matrices and factors are freed with the common that made them.
class CholmodCommon {
 public:
  CholmodCommon();
  ~CholmodCommon();
  CholmodCommon(const CholmodCommon&) = delete;
  CholmodCommon& operator=(const CholmodCommon&) = delete;
  cholmod_common_struct* get() { return common_.get(); }
  const cholmod_common_struct* get() const { return common_.get(); }

 private:
  std::unique_ptr<cholmod_common_struct> common_;
};

struct CholmodSparseDeleter {
  cholmod_common_struct* common = nullptr;
  void operator()(cholmod_sparse_struct* matrix) const;
};
struct CholmodFactorDeleter {
  cholmod_common_struct* common = nullptr;
  void operator()(cholmod_factor_struct* factor) const;
};
using CholmodSparsePtr = std::unique_ptr<cholmod_sparse_struct, CholmodSparseDeleter>;
using CholmodFactorPtr = std::unique_ptr<cholmod_factor_struct, CholmodFactorDeleter>;

// A CHOLMOD copy of a (square, symmetric) Eigen matrix, lower triangle referenced (stype -1).
CholmodSparsePtr to_cholmod_symmetric(const Eigen::SparseMatrix<double>& matrix,
                                      CholmodCommon& common);
// A general (stype 0) CHOLMOD matrix back to Eigen; symmetric ones are expanded to both triangles.
Eigen::SparseMatrix<double> from_cholmod(const cholmod_sparse_struct& matrix);

class CholmodFactorization {
 public:
  // Symbolic analysis of the pattern (square, both triangles or lower only). `canonical_order` is
  // required for kCanonical and kRootFirst (root-first uses it reversed) and ignored otherwise.
  // Throws OrderingUnavailable, or std::invalid_argument for a bad pattern/order.
  CholmodFactorization(const SparsityPattern& pattern, MassOrdering ordering,
                       const std::vector<int>& canonical_order = {},
                       FactorKind kind = FactorKind::kCholesky);
  // The mass matrix pattern of the structure (mass_matrix_pattern) with canonical_dof_order.
  CholmodFactorization(const SkoStructure& structure, MassOrdering ordering);
  ~CholmodFactorization();
  CholmodFactorization(const CholmodFactorization&) = delete;
  CholmodFactorization& operator=(const CholmodFactorization&) = delete;

  // Numeric factorization of M (the analysed pattern; only the lower triangle is read). Reuses the
  // analysis. Throws std::invalid_argument on a pattern mismatch, NotPositiveDefinite.
  void factorize(const Eigen::SparseMatrix<double>& mass);

  MassOrdering ordering() const { return ordering_; }
  int size() const { return size_; }
  // Row i of L is dof permutation()[i] (0-based): L L' = P M P' with P(i, permutation()[i]) = 1.
  const std::vector<int>& permutation() const { return permutation_; }
  // nnz(L) of the analysis (CHOLMOD's lnz, diagonal included) and the flop count of the numeric
  // factorization (CHOLMOD's fl), both known before any numbers.
  long factor_nonzeros() const { return factor_nonzeros_; }
  double flops() const { return flops_; }
  bool factorized() const { return factorized_; }
  // The method CHOLMOD reports in the factor: "given", "amd", "metis" (or "natural", "nesdis",
  // "colamd" should CHOLMOD ever fall back), to tell a requested METIS from a silent substitute.
  const char* ordering_used() const { return ordering_used_; }

  // L (lower triangular, permuted order) of the last factorize(); for kLdl, D on its diagonal
  // (L's own diagonal is 1).
  Eigen::SparseMatrix<double> factor() const;
  // x with M x = b, from the last factorize().
  Eigen::VectorXd solve(const Eigen::VectorXd& b);

 private:
  CholmodCommon common_;
  CholmodSparsePtr pattern_;  // the analysed pattern, lower triangle, stype -1 (factorize checks)
  CholmodFactorPtr factor_;
  MassOrdering ordering_;
  FactorKind kind_ = FactorKind::kCholesky;
  int size_ = 0;
  std::vector<int> permutation_;
  long factor_nonzeros_ = 0;
  double flops_ = 0.0;
  bool factorized_ = false;
  const char* ordering_used_ = "";
};

}  // namespace skograph
