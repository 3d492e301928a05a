// O(N) scatter/gather evaluation of SPO operator/vector products (part II section 3), never
// forming A = (I - E)^-1.
//
// Every function takes a BwaMatrix E (the SKO operator E_A of a model, or a derived one such as
// E_psi of part II Lemma 8) and stacked vectors in its node layout (node-id order), and writes the
// caller's preallocated output; none allocates. Gathers walk forest().post_order() forwards (tips
// to base), scatters backwards (base to tips), so any node numbering works.
//
// x and y must have layout().total() entries (std::invalid_argument otherwise). resolvent_product
// and resolvent_adjoint_product may work in place (y and x the same vector); the A~ products may
// not (std::invalid_argument when x and y share storage).
#pragma once

#include <Eigen/Core>

#include "skograph/operators/bwa_matrix.hpp"

namespace skograph {

// y = A x by the tips-to-base gather y(k) = sum_{i in C(k)} A(k, i) y(i) + x(k)
// (part II Lemma 1, Eq. 4-5).
void resolvent_product(const BwaMatrix& kernel, const Eigen::Ref<const Eigen::VectorXd>& x,
                       Eigen::Ref<Eigen::VectorXd> y);

// y = A* x by the base-to-tips scatter y(k) = A*(parent(k), k) y(parent(k)) + x(k), with zero
// for the (virtual) parent of base nodes (part II Lemma 2, Eq. 7-8).
void resolvent_adjoint_product(const BwaMatrix& kernel, const Eigen::Ref<const Eigen::VectorXd>& x,
                               Eigen::Ref<Eigen::VectorXd> y);

// y = A~ x, A~ = A - I (part I Eq. 20), by the gather y(k) = sum_{j in C(k)} A(k, j) [y(j) + x(j)]
// (part II Corollary 3.1).
void resolvent_tilde_product(const BwaMatrix& kernel, const Eigen::Ref<const Eigen::VectorXd>& x,
                             Eigen::Ref<Eigen::VectorXd> y);

// y = A~* x by the scatter y(k) = A*(parent(k), k) [y(parent(k)) + x(parent(k))], zero at base
// nodes (part II Corollary 3.1).
void resolvent_tilde_adjoint_product(const BwaMatrix& kernel,
                                     const Eigen::Ref<const Eigen::VectorXd>& x,
                                     Eigen::Ref<Eigen::VectorXd> y);

}  // namespace skograph
