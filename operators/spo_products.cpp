#include "skograph/operators/spo_products.hpp"

#include <stdexcept>
#include <string>

namespace skograph {
namespace {

void check_sizes(const BwaMatrix& kernel, Eigen::Index x_size, Eigen::Index y_size,
                 const char* what) {
  const Eigen::Index total = kernel.layout().total();
  if (x_size != total || y_size != total)
    throw std::invalid_argument(std::string(what) + ": vectors of size " + std::to_string(x_size) +
                                " and " + std::to_string(y_size) + " for a layout of " +
                                std::to_string(total));
}

void check_distinct(const Eigen::Ref<const Eigen::VectorXd>& x,
                    const Eigen::Ref<Eigen::VectorXd>& y, const char* what) {
  const double* x_begin = x.data();
  const double* y_begin = y.data();
  if (x.size() > 0 && x_begin < y_begin + y.size() && y_begin < x_begin + x.size())
    throw std::invalid_argument(std::string(what) + ": input and output share storage");
}

}  // namespace

// Part II Lemma 1, Eq. 5 (tips-to-base gather).
void resolvent_product(const BwaMatrix& kernel, const Eigen::Ref<const Eigen::VectorXd>& x,
                       Eigen::Ref<Eigen::VectorXd> y) {
  check_sizes(kernel, x.size(), y.size(), "resolvent_product");
  const Forest& forest = kernel.forest();
  const BlockLayout& layout = kernel.layout();
  for (const int k : forest.post_order()) {
    auto yk = y.segment(layout.offset(k), layout.dim(k));
    yk = x.segment(layout.offset(k), layout.dim(k));
    for (const int i : forest.children(k))
      yk.noalias() += kernel.weight(i) * y.segment(layout.offset(i), layout.dim(i));
  }
}

// Part II Lemma 2, Eq. 8 (base-to-tips scatter).
void resolvent_adjoint_product(const BwaMatrix& kernel, const Eigen::Ref<const Eigen::VectorXd>& x,
                               Eigen::Ref<Eigen::VectorXd> y) {
  check_sizes(kernel, x.size(), y.size(), "resolvent_adjoint_product");
  const Forest& forest = kernel.forest();
  const BlockLayout& layout = kernel.layout();
  const auto order = forest.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = forest.parent(k);
    auto yk = y.segment(layout.offset(k), layout.dim(k));
    yk = x.segment(layout.offset(k), layout.dim(k));
    if (p != Forest::kNone)
      yk.noalias() += kernel.weight(k).transpose() * y.segment(layout.offset(p), layout.dim(p));
  }
}

// Part II Corollary 3.1 (gather).
void resolvent_tilde_product(const BwaMatrix& kernel, const Eigen::Ref<const Eigen::VectorXd>& x,
                             Eigen::Ref<Eigen::VectorXd> y) {
  check_sizes(kernel, x.size(), y.size(), "resolvent_tilde_product");
  check_distinct(x, y, "resolvent_tilde_product");
  const Forest& forest = kernel.forest();
  const BlockLayout& layout = kernel.layout();
  for (const int k : forest.post_order()) {
    auto yk = y.segment(layout.offset(k), layout.dim(k));
    yk.setZero();
    for (const int j : forest.children(k)) {
      const auto yj = y.segment(layout.offset(j), layout.dim(j));
      const auto xj = x.segment(layout.offset(j), layout.dim(j));
      // Two products instead of w (y + x): the sum would need a temporary.
      yk.noalias() += kernel.weight(j) * yj;
      yk.noalias() += kernel.weight(j) * xj;
    }
  }
}

// Part II Corollary 3.1 (scatter).
void resolvent_tilde_adjoint_product(const BwaMatrix& kernel,
                                     const Eigen::Ref<const Eigen::VectorXd>& x,
                                     Eigen::Ref<Eigen::VectorXd> y) {
  check_sizes(kernel, x.size(), y.size(), "resolvent_tilde_adjoint_product");
  check_distinct(x, y, "resolvent_tilde_adjoint_product");
  const Forest& forest = kernel.forest();
  const BlockLayout& layout = kernel.layout();
  const auto order = forest.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = forest.parent(k);
    auto yk = y.segment(layout.offset(k), layout.dim(k));
    if (p == Forest::kNone) {
      yk.setZero();
      continue;
    }
    const auto w = kernel.weight(k);
    yk.noalias() = w.transpose() * y.segment(layout.offset(p), layout.dim(p));
    yk.noalias() += w.transpose() * x.segment(layout.offset(p), layout.dim(p));
  }
}

}  // namespace skograph
