// The Riccati solution of part II Lemma 7-8 and every identity of Lemmas 9 and 10, checked as
// dense matrix equations: the operators P, D, G, tau, tau-bar, P+ and E_psi are laid out from the
// per-node blocks articulated_body_inertias produced; E_A, A, H and M come from the model's
// definition (random_sko.hpp); psi = (I - E_psi)^-1 and K = E_A G are formed densely.
#include "skograph/operators/articulated_body.hpp"

#include <gtest/gtest.h>

#include "support/operator_support.hpp"

namespace skograph {
namespace {

using Eigen::MatrixXd;
using testing_support::relative_error;

struct DenseRiccatiOperators {
  MatrixXd e_a, a, a_tilde, h, m;                 // the model (definitions)
  MatrixXd p, d, g, tau, tau_bar, p_plus, e_psi;  // the recursion's blocks, laid out densely
  MatrixXd psi, psi_tilde, k, identity_nodes, identity_dofs;
};

DenseRiccatiOperators dense_operators(const SkoModel& model, const ArticulatedBodyWorkspace& ws) {
  const BlockLayout& node = model.structure().node;
  const BlockLayout& hinge = model.structure().hinge;
  DenseRiccatiOperators o;
  o.e_a = testing_support::dense_kernel(model);
  o.a = testing_support::dense_resolvent(model);
  o.identity_nodes = MatrixXd::Identity(node.total(), node.total());
  o.identity_dofs = MatrixXd::Identity(hinge.total(), hinge.total());
  o.a_tilde = o.a - o.identity_nodes;
  o.h = testing_support::dense_hinge_map(model);
  o.m = testing_support::dense_node_inertia(model);
  o.p = testing_support::dense_block_diagonal(ws.articulated_inertia, node, node);
  o.d = testing_support::dense_block_diagonal(ws.innovations_inertia, hinge, hinge);
  o.g = testing_support::dense_block_diagonal(ws.kalman_gain, node, hinge);
  o.tau_bar = testing_support::dense_block_diagonal(ws.complement_projector, node, node);
  o.tau = o.identity_nodes - o.tau_bar;
  o.p_plus = testing_support::dense_block_diagonal(ws.articulated_inertia_plus, node, node);
  o.e_psi = testing_support::dense_bwa(ws.psi_kernel);
  o.psi = (o.identity_nodes - o.e_psi).inverse();
  o.psi_tilde = o.psi - o.identity_nodes;
  o.k = o.e_a * o.g;  // K = E_A G, part II Eq. 43
  return o;
}

// Runs `check` on random trees and forests (many seeds, up to 90 nodes, dims 1..9, 0-dof hinges).
template <typename Check>
void for_random_models(int seeds, Check&& check) {
  for (int seed = 0; seed < seeds; ++seed) {
    std::mt19937 rng(5000 + seed);
    const SkoModel model =
        testing_support::random_bounded_sko_model(testing_support::options_for_seed(seed, 90), rng);
    ArticulatedBodyWorkspace workspace(model.structure_ptr());
    articulated_body_inertias(model, workspace);
    SCOPED_TRACE(testing::Message() << "seed " << seed << ", " << model.size() << " nodes");
    check(model, workspace, dense_operators(model, workspace));
  }
}

constexpr double kTolerance = 1e-10;

TEST(Riccati, SolvesTheRiccatiEquationLemma7) {
  for_random_models(
      20, [](const SkoModel&, const ArticulatedBodyWorkspace&, const DenseRiccatiOperators& o) {
        // Eq. 31: M = P - E_A [P - P H* (H P H*)^-1 H P] E_A*.
        const MatrixXd hph = o.h * o.p * o.h.transpose();
        const MatrixXd inner = o.p - o.p * o.h.transpose() * hph.inverse() * o.h * o.p;
        EXPECT_LT(relative_error(o.p - o.e_a * inner * o.e_a.transpose(), o.m), kTolerance);
        // P symmetric positive definite.
        EXPECT_LT(relative_error(o.p, o.p.transpose()), kTolerance);
        EXPECT_EQ(Eigen::LLT<MatrixXd>(0.5 * (o.p + o.p.transpose())).info(), Eigen::Success);
        // Eq. 32: D = H P H*, G = P H* D^-1, tau = G H, P+ = tau-bar P = tau-bar P tau-bar*.
        EXPECT_LT(relative_error(o.d, hph), kTolerance);
        EXPECT_LT(relative_error(o.g * o.d, o.p * o.h.transpose()), kTolerance);
        EXPECT_LT(relative_error(o.tau, o.g * o.h), kTolerance);
        EXPECT_LT(relative_error(o.p_plus, o.tau_bar * o.p), kTolerance);
        EXPECT_LT(relative_error(o.p_plus, o.tau_bar * o.p * o.tau_bar.transpose()), kTolerance);
        EXPECT_LT(relative_error(o.p_plus, inner), kTolerance);
      });
}

TEST(Riccati, PsiIsTheSkoOperatorOfLemma8) {
  for_random_models(20, [](const SkoModel& model, const ArticulatedBodyWorkspace&,
                           const DenseRiccatiOperators& o) {
    // Eq. 34-35: E_psi = E_A tau-bar, with the sparsity of E_A (an SKO operator of the same tree).
    EXPECT_LT(relative_error(o.e_psi, o.e_a * o.tau_bar), kTolerance);
    // Nilpotent like every SKO operator: E_psi^n = 0 (so psi = I + E_psi + ... is finite).
    MatrixXd power = o.e_psi;  // E_psi^(2^s) with 2^s >= n, by repeated squaring
    for (int exponent = 1; exponent < model.size(); exponent *= 2) power = power * power;
    EXPECT_LT(power.norm(), 1e-12 * std::max(1.0, o.e_psi.norm()));
    // Eq. 36: M = P - E_psi P E_psi* = P - E_A P+ E_A*.
    EXPECT_LT(relative_error(o.p - o.e_psi * o.p * o.e_psi.transpose(), o.m), kTolerance);
    EXPECT_LT(relative_error(o.p - o.e_a * o.p_plus * o.e_a.transpose(), o.m), kTolerance);
  });
}

TEST(Riccati, Lemma9Identities) {
  for_random_models(20, [](const SkoModel&, const ArticulatedBodyWorkspace&,
                           const DenseRiccatiOperators& o) {
    // Eq. 38: H G = I, H tau = H, H tau-bar = 0, I + H A K = H A G.
    EXPECT_LT(relative_error(o.h * o.g, o.identity_dofs), kTolerance);
    EXPECT_LT(relative_error(o.h * o.tau, o.h), kTolerance);
    EXPECT_LT((o.h * o.tau_bar).norm() / std::max(1.0, o.h.norm() * o.tau_bar.norm()), kTolerance);
    EXPECT_LT(relative_error(o.identity_dofs + o.h * o.a * o.k, o.h * o.a * o.g), kTolerance);
    // Eq. 39: H A tau-bar = H A E_psi.
    EXPECT_LT(relative_error(o.h * o.a * o.tau_bar, o.h * o.a * o.e_psi), kTolerance);
    // Eq. 40: H A tau = H A (I - E_psi) = H A psi^-1.
    EXPECT_LT(relative_error(o.h * o.a * o.tau, o.h * o.a * (o.identity_nodes - o.e_psi)),
              kTolerance);
    EXPECT_LT(relative_error(o.h * o.a * o.tau, o.h * o.a * o.psi.inverse()), kTolerance);
    // Eq. 41: A M psi* = P + A~ P + P psi~*.
    EXPECT_LT(relative_error(o.a * o.m * o.psi.transpose(),
                             o.p + o.a_tilde * o.p + o.p * o.psi_tilde.transpose()),
              kTolerance);
  });
}

TEST(Riccati, Lemma10Identities) {
  for_random_models(
      20, [](const SkoModel&, const ArticulatedBodyWorkspace&, const DenseRiccatiOperators& o) {
        const MatrixXd& i_n = o.identity_nodes;
        const MatrixXd& i_d = o.identity_dofs;
        const MatrixXd a_inverse = i_n - o.e_a, psi_inverse = i_n - o.e_psi;
        // Eq. 42: psi M psi* = P + psi~ P + P psi~*.
        EXPECT_LT(relative_error(o.psi * o.m * o.psi.transpose(),
                                 o.p + o.psi_tilde * o.p + o.p * o.psi_tilde.transpose()),
                  kTolerance);
        // Eq. 43: psi^-1 - A^-1 = K H.
        EXPECT_LT(relative_error(psi_inverse - a_inverse, o.k * o.h), kTolerance);
        // Eq. 44.
        EXPECT_LT(relative_error(psi_inverse * o.a, i_n + o.k * o.h * o.a), kTolerance);
        EXPECT_LT(relative_error(o.a * psi_inverse, i_n + o.a * o.k * o.h), kTolerance);
        EXPECT_LT(relative_error(a_inverse * o.psi, i_n - o.k * o.h * o.psi), kTolerance);
        EXPECT_LT(relative_error(o.psi * a_inverse, i_n - o.psi * o.k * o.h), kTolerance);
        // Eq. 45.
        const MatrixXd minus = i_d - o.h * o.psi * o.k, plus = i_d + o.h * o.a * o.k;
        EXPECT_LT(relative_error(minus * o.h * o.a, o.h * o.psi), kTolerance);
        EXPECT_LT(relative_error(o.a * o.k * minus, o.psi * o.k), kTolerance);
        EXPECT_LT(relative_error(plus * o.h * o.psi, o.h * o.a), kTolerance);
        EXPECT_LT(relative_error(o.psi * o.k * plus, o.a * o.k), kTolerance);
        // Eq. 46: H psi M psi* H* = D (block diagonal).
        EXPECT_LT(relative_error(o.h * o.psi * o.m * o.psi.transpose() * o.h.transpose(), o.d),
                  kTolerance);
        // Eq. 47: A M A* = P + A~ P + P A~* + A K D K* A*.
        EXPECT_LT(relative_error(o.a * o.m * o.a.transpose(),
                                 o.p + o.a_tilde * o.p + o.p * o.a_tilde.transpose() +
                                     o.a * o.k * o.d * o.k.transpose() * o.a.transpose()),
                  kTolerance);
        // Eq. 48: A M A* H* = [I + A K H] P A* H*.
        EXPECT_LT(relative_error(o.a * o.m * o.a.transpose() * o.h.transpose(),
                                 (i_n + o.a * o.k * o.h) * o.p * o.a.transpose() * o.h.transpose()),
                  kTolerance);
      });
}

TEST(Riccati, ZeroDofHingesPassTheInertiaThrough) {
  // A node with r_k = 0 has an empty D(k) and G(k), tau-bar(k) = I and P+(k) = P(k).
  std::mt19937 rng(11);
  testing_support::RandomSkoOptions options;
  options.nodes = 80;
  const SkoModel model = testing_support::random_sko_model(options, rng);
  ArticulatedBodyWorkspace workspace(model.structure_ptr());
  articulated_body_inertias(model, workspace);
  int welds = 0;
  for (int k = 0; k < model.size(); ++k) {
    if (model.hinge_dim(k) != 0) continue;
    ++welds;
    EXPECT_EQ(workspace.innovations_inertia[k].size(), 0);
    EXPECT_EQ(workspace.kalman_gain[k].cols(), 0);
    EXPECT_TRUE(workspace.complement_projector[k].isIdentity());
    EXPECT_EQ((workspace.articulated_inertia_plus[k] - workspace.articulated_inertia[k]).norm(),
              0.0);
  }
  EXPECT_GT(welds, 0);
}

}  // namespace
}  // namespace skograph
