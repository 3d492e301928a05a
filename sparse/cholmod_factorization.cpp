#include "skograph/sparse/cholmod_factorization.hpp"

#include <cholmod.h>

#include <algorithm>
#include <string>

#include "skograph/sparse/sparse_assembly.hpp"

namespace skograph {

namespace {

// A non-owning CHOLMOD view of an Eigen compressed matrix (CHOLMOD only reads it), symmetric with
// the lower triangle referenced.
cholmod_sparse symmetric_view(const Eigen::SparseMatrix<double>& matrix) {
  cholmod_sparse view{};
  view.nrow = static_cast<std::size_t>(matrix.rows());
  view.ncol = static_cast<std::size_t>(matrix.cols());
  view.nzmax = static_cast<std::size_t>(matrix.nonZeros());
  view.p = const_cast<int*>(matrix.outerIndexPtr());
  view.i = const_cast<int*>(matrix.innerIndexPtr());
  view.nz = nullptr;
  view.x = const_cast<double*>(matrix.valuePtr());
  view.z = nullptr;
  view.stype = -1;
  view.itype = CHOLMOD_INT;
  view.xtype = CHOLMOD_REAL;
  view.dtype = CHOLMOD_DOUBLE;
  view.sorted = 1;
  view.packed = 1;
  return view;
}

long lower_count(const int* column_start, const int* row_index, int cols) {
  long count = 0;
  for (int c = 0; c < cols; ++c)
    for (int p = column_start[c]; p < column_start[c + 1]; ++p) count += row_index[p] >= c;
  return count;
}

// The lower triangle of `matrix` has exactly the entries of the (lower, sorted) `pattern`.
bool same_lower_pattern(const Eigen::SparseMatrix<double>& matrix, const cholmod_sparse& pattern) {
  const int* pattern_start = static_cast<const int*>(pattern.p);
  const int* pattern_row = static_cast<const int*>(pattern.i);
  const int* start = matrix.outerIndexPtr();
  const int* row = matrix.innerIndexPtr();
  for (int c = 0; c < static_cast<int>(matrix.cols()); ++c) {
    int p = start[c];
    while (p < start[c + 1] && row[p] < c) ++p;  // skip the upper triangle
    if (start[c + 1] - p != pattern_start[c + 1] - pattern_start[c]) return false;
    for (int q = pattern_start[c]; q < pattern_start[c + 1]; ++q, ++p)
      if (row[p] != pattern_row[q]) return false;
  }
  return true;
}

}  // namespace

const char* ordering_name(MassOrdering ordering) {
  switch (ordering) {
    case MassOrdering::kCanonical:
      return "canonical";
    case MassOrdering::kRootFirst:
      return "root-first";
    case MassOrdering::kAmd:
      return "amd";
    case MassOrdering::kMetis:
      return "metis";
  }
  return "unknown";
}

std::optional<MassOrdering> parse_ordering(std::string_view name) {
  for (MassOrdering ordering : {MassOrdering::kCanonical, MassOrdering::kRootFirst,
                                MassOrdering::kAmd, MassOrdering::kMetis})
    if (name == ordering_name(ordering)) return ordering;
  return std::nullopt;
}

// Part I section 2: the depth-first post-order is strictly canonical (every node after its
// descendants); each node contributes its r_k hinge dofs in place.
CholmodCommon::CholmodCommon() : common_(std::make_unique<cholmod_common>()) {
  cholmod_start(common_.get());
  common_->print = 0;  // errors become exceptions here, not text on stderr
}

CholmodCommon::~CholmodCommon() {
  cholmod_finish(common_.get());
}

void CholmodSparseDeleter::operator()(cholmod_sparse* matrix) const {
  cholmod_free_sparse(&matrix, common);
}

void CholmodFactorDeleter::operator()(cholmod_factor* factor) const {
  cholmod_free_factor(&factor, common);
}

CholmodSparsePtr to_cholmod_symmetric(const Eigen::SparseMatrix<double>& matrix,
                                      CholmodCommon& common) {
  if (matrix.rows() != matrix.cols())
    throw std::invalid_argument("to_cholmod_symmetric: the matrix is not square");
  Eigen::SparseMatrix<double> compressed = matrix;
  compressed.makeCompressed();
  const int n = static_cast<int>(compressed.cols());
  const long lower = lower_count(compressed.outerIndexPtr(), compressed.innerIndexPtr(), n);
  cholmod_sparse* result = cholmod_allocate_sparse(
      static_cast<std::size_t>(n), static_cast<std::size_t>(n), static_cast<std::size_t>(lower), 1,
      1, -1, CHOLMOD_REAL, common.get());
  if (result == nullptr) throw std::bad_alloc();
  auto* column_start = static_cast<int*>(result->p);
  auto* row_index = static_cast<int*>(result->i);
  auto* value = static_cast<double*>(result->x);
  int stored = 0;
  for (int c = 0; c < n; ++c) {
    column_start[c] = stored;
    for (Eigen::SparseMatrix<double>::InnerIterator it(compressed, c); it; ++it)
      if (it.row() >= c) {
        row_index[stored] = static_cast<int>(it.row());
        value[stored++] = it.value();
      }
  }
  column_start[n] = stored;
  return CholmodSparsePtr(result, CholmodSparseDeleter{common.get()});
}

Eigen::SparseMatrix<double> from_cholmod(const cholmod_sparse& matrix) {
  if (matrix.itype != CHOLMOD_INT && matrix.itype != CHOLMOD_LONG)
    throw std::invalid_argument("from_cholmod: unsupported index type");
  if (matrix.xtype != CHOLMOD_REAL && matrix.xtype != CHOLMOD_PATTERN)
    throw std::invalid_argument("from_cholmod: only real or pattern matrices");
  auto index = [&](const void* array, std::size_t k) -> long {
    return matrix.itype == CHOLMOD_INT ? static_cast<const int*>(array)[k]
                                       : static_cast<const SuiteSparse_long*>(array)[k];
  };
  std::vector<Eigen::Triplet<double>> entries;
  for (std::size_t c = 0; c < matrix.ncol; ++c) {
    const long begin = index(matrix.p, c);
    const long end = matrix.packed ? index(matrix.p, c + 1) : begin + index(matrix.nz, c);
    for (long p = begin; p < end; ++p) {
      const long r = index(matrix.i, static_cast<std::size_t>(p));
      const double v = matrix.xtype == CHOLMOD_REAL ? static_cast<const double*>(matrix.x)[p] : 1.0;
      const long col = static_cast<long>(c);
      // Symmetric storage: only the referenced triangle counts, mirrored.
      if ((matrix.stype < 0 && r < col) || (matrix.stype > 0 && r > col)) continue;
      entries.emplace_back(static_cast<int>(r), static_cast<int>(col), v);
      if (matrix.stype != 0 && r != col)
        entries.emplace_back(static_cast<int>(col), static_cast<int>(r), v);
    }
  }
  Eigen::SparseMatrix<double> result(static_cast<Eigen::Index>(matrix.nrow),
                                     static_cast<Eigen::Index>(matrix.ncol));
  result.setFromTriplets(entries.begin(), entries.end());
  return result;
}

CholmodFactorization::CholmodFactorization(const SkoStructure& structure, MassOrdering ordering)
    : CholmodFactorization(mass_matrix_pattern(structure), ordering,
                           canonical_dof_order(structure)) {}

CholmodFactorization::CholmodFactorization(const SparsityPattern& pattern, MassOrdering ordering,
                                           const std::vector<int>& canonical_order, FactorKind kind)
    : ordering_(ordering), kind_(kind), size_(pattern.rows) {
  if (pattern.rows != pattern.cols)
    throw std::invalid_argument("CholmodFactorization: the pattern is not square");
  cholmod_common* common = common_.get();
  // The lower triangle of the pattern (values 0: the analysis only looks at the structure).
  pattern_ = to_cholmod_symmetric(pattern_matrix(pattern), common_);

  std::vector<int> given;
  if (ordering == MassOrdering::kCanonical || ordering == MassOrdering::kRootFirst) {
    if (static_cast<int>(canonical_order.size()) != size_)
      throw std::invalid_argument("CholmodFactorization: the canonical order has " +
                                  std::to_string(canonical_order.size()) + " entries, not " +
                                  std::to_string(size_));
    std::vector<char> seen(static_cast<std::size_t>(size_), 0);
    for (const int dof : canonical_order) {
      if (dof < 0 || dof >= size_ || seen[static_cast<std::size_t>(dof)])
        throw std::invalid_argument("CholmodFactorization: the canonical order is no permutation");
      seen[static_cast<std::size_t>(dof)] = 1;
    }
    given = canonical_order;
    if (ordering == MassOrdering::kRootFirst) std::reverse(given.begin(), given.end());
  }

  // pitfalls.md: one method, our permutation kept as given (no postordering), simplicial LL'.
  common->nmethods = 1;
  common->method[0].ordering = given.empty()
                                   ? (ordering == MassOrdering::kAmd ? CHOLMOD_AMD : CHOLMOD_METIS)
                                   : CHOLMOD_GIVEN;
  common->postorder = given.empty() ? 1 : 0;
  common->supernodal = CHOLMOD_SIMPLICIAL;
  common->final_ll = kind == FactorKind::kCholesky ? 1 : 0;
  common->status = CHOLMOD_OK;
  cholmod_factor* factor =
      cholmod_analyze_p(pattern_.get(), given.empty() ? nullptr : given.data(), nullptr, 0, common);
  if (factor == nullptr || common->status < CHOLMOD_OK) {
    if (factor != nullptr) cholmod_free_factor(&factor, common);
    if (common->status == CHOLMOD_NOT_INSTALLED)
      throw OrderingUnavailable(std::string("the ") + ordering_name(ordering) +
                                " ordering is not available in this CHOLMOD build");
    if (common->status == CHOLMOD_OUT_OF_MEMORY) throw std::bad_alloc();
    throw std::runtime_error(std::string("CHOLMOD analysis failed (status ") +
                             std::to_string(common->status) + ")");
  }
  factor_ = CholmodFactorPtr(factor, CholmodFactorDeleter{common});
  const int* perm = static_cast<const int*>(factor->Perm);
  permutation_.assign(perm, perm + size_);
  switch (factor->ordering) {
    case CHOLMOD_GIVEN:
      ordering_used_ = "given";
      break;
    case CHOLMOD_AMD:
      ordering_used_ = "amd";
      break;
    case CHOLMOD_METIS:
      ordering_used_ = "metis";
      break;
    case CHOLMOD_NESDIS:
      ordering_used_ = "nesdis";
      break;
    case CHOLMOD_COLAMD:
      ordering_used_ = "colamd";
      break;
    default:
      ordering_used_ = "natural";
  }
  factor_nonzeros_ = static_cast<long>(common->lnz);
  flops_ = common->fl;
}

CholmodFactorization::~CholmodFactorization() = default;

void CholmodFactorization::factorize(const Eigen::SparseMatrix<double>& mass) {
  if (mass.rows() != size_ || mass.cols() != size_ || !mass.isCompressed())
    throw std::invalid_argument("CholmodFactorization::factorize: expected a compressed " +
                                std::to_string(size_) + " x " + std::to_string(size_) + " matrix");
  if (!same_lower_pattern(mass, *pattern_))
    throw std::invalid_argument(
        "CholmodFactorization::factorize: the matrix does not have the analysed pattern");
  if (size_ == 0) {  // no dofs (welds only): nothing to factor, CHOLMOD rejects empty arrays
    factorized_ = true;
    return;
  }
  cholmod_sparse view = symmetric_view(mass);
  cholmod_common* common = common_.get();
  common->status = CHOLMOD_OK;
  factorized_ = false;
  cholmod_factorize(&view, factor_.get(), common);
  if (common->status == CHOLMOD_NOT_POSDEF)
    throw SingularMassMatrixError(
        -1, std::string(kind_ == FactorKind::kCholesky
                            ? "the mass matrix is not positive definite (pivot "
                            : "the matrix has a zero pivot in this order (pivot ") +
                std::to_string(factor_->minor + 1) + " of " + std::to_string(size_) + ")");
  if (common->status < CHOLMOD_OK)
    throw std::runtime_error("CHOLMOD factorization failed (status " +
                             std::to_string(common->status) + ")");
  factorized_ = true;
}

Eigen::SparseMatrix<double> CholmodFactorization::factor() const {
  if (!factorized_) throw std::logic_error("CholmodFactorization::factor before factorize");
  if (size_ == 0) return {};
  const cholmod_factor& l = *factor_;
  const int* column_start = static_cast<const int*>(l.p);
  const int* count = static_cast<const int*>(l.nz);
  const int* row_index = static_cast<const int*>(l.i);
  const double* value = static_cast<const double*>(l.x);
  Eigen::SparseMatrix<double> result(size_, size_);
  Eigen::VectorXi column_sizes(size_);
  for (int c = 0; c < size_; ++c) column_sizes(c) = count[c];
  result.reserve(column_sizes);
  for (int c = 0; c < size_; ++c)
    for (int p = column_start[c]; p < column_start[c] + count[c]; ++p)
      result.insert(row_index[p], c) = value[p];
  result.makeCompressed();
  return result;
}

Eigen::VectorXd CholmodFactorization::solve(const Eigen::VectorXd& b) {
  if (!factorized_) throw std::logic_error("CholmodFactorization::solve before factorize");
  if (b.size() != size_)
    throw std::invalid_argument("CholmodFactorization::solve: right-hand side of size " +
                                std::to_string(b.size()) + ", expected " + std::to_string(size_));
  if (size_ == 0) return {};
  cholmod_dense rhs{};
  rhs.nrow = rhs.d = static_cast<std::size_t>(size_);
  rhs.ncol = 1;
  rhs.nzmax = static_cast<std::size_t>(size_);
  rhs.x = const_cast<double*>(b.data());
  rhs.xtype = CHOLMOD_REAL;
  rhs.dtype = CHOLMOD_DOUBLE;
  cholmod_common* common = common_.get();
  cholmod_dense* x = cholmod_solve(CHOLMOD_A, factor_.get(), &rhs, common);
  if (x == nullptr) throw std::runtime_error("CHOLMOD solve failed");
  Eigen::VectorXd result = Eigen::Map<const Eigen::VectorXd>(static_cast<double*>(x->x), size_);
  cholmod_free_dense(&x, common);
  return result;
}

}  // namespace skograph
