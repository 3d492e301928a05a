#include "skograph/operators/forward_dynamics.hpp"

#include <stdexcept>
#include <string>

namespace skograph {
namespace {

void check_forward_size(const char* name, Eigen::Index size, int expected) {
  if (size != expected)
    throw std::invalid_argument(std::string("forward_dynamics: ") + name + " has " +
                                std::to_string(size) + " entries, expected " +
                                std::to_string(expected));
}

}  // namespace

ForwardDynamicsWorkspace::ForwardDynamicsWorkspace(std::shared_ptr<const SkoStructure> structure)
    : articulated(structure),
      residual_force(Eigen::VectorXd::Zero(structure->node.total())),
      residual_force_plus(Eigen::VectorXd::Zero(structure->node.total())),
      innovation(Eigen::VectorXd::Zero(structure->hinge.total())),
      scaled_innovation(Eigen::VectorXd::Zero(structure->hinge.total())),
      node_acceleration(Eigen::VectorXd::Zero(structure->node.total())),
      node_velocity(Eigen::VectorXd::Zero(structure->node.total())),
      generalized_acceleration(Eigen::VectorXd::Zero(structure->hinge.total())) {}

// Part II Algorithm 6.1 (Lemma 12, Eq. 54): step 1 (Eq. 33), then the sweeps (Eq. 58).
const Eigen::VectorXd& forward_dynamics(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    ForwardDynamicsWorkspace& workspace) {
  articulated_body_inertias(model, workspace.articulated);  // Algorithm 6.1 step 1 (Eq. 33)
  return forward_dynamics_sweeps(model, thetadot, generalized_force, coriolis_acceleration,
                                 gyroscopic_force, workspace);
}

namespace {

// The two sweeps of part II Algorithm 6.1 (Eq. 58a-58g). A null thetadot / coriolis_acceleration /
// gyroscopic_force stands for a zero vector (used by apply_mass_matrix_inverse).
const Eigen::VectorXd& articulated_body_sweeps(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>* thetadot_pointer,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>* coriolis_pointer,
    const Eigen::Ref<const Eigen::VectorXd>* gyroscopic_pointer,
    ForwardDynamicsWorkspace& workspace) {
  const SkoStructure& structure = model.structure();
  const BlockLayout& node = structure.node;
  const BlockLayout& hinge = structure.hinge;
  check_forward_size("T", generalized_force.size(), hinge.total());
  const Forest& forest = model.forest();
  const ArticulatedBodyWorkspace& articulated = workspace.articulated;
  Eigen::VectorXd& z = workspace.residual_force;
  Eigen::VectorXd& z_plus = workspace.residual_force_plus;
  Eigen::VectorXd& epsilon = workspace.innovation;
  Eigen::VectorXd& nu = workspace.scaled_innovation;

  // Tips-to-base gather (Eq. 58a-58d): z(k) = sum_j A(k, j) z+(j) + P(k) a(k) + b(k), ...
  for (const int k : forest.post_order()) {
    const int m = node.dim(k), mo = node.offset(k), r = hinge.dim(k), ro = hinge.offset(k);
    auto z_k = z.segment(mo, m);
    if (gyroscopic_pointer != nullptr)
      z_k = gyroscopic_pointer->segment(mo, m);
    else
      z_k.setZero();
    if (coriolis_pointer != nullptr)
      z_k.noalias() += articulated.articulated_inertia[k] * coriolis_pointer->segment(mo, m);
    for (const int j : forest.children(k))
      z_k.noalias() += model.weight(j) * z_plus.segment(node.offset(j), node.dim(j));
    auto epsilon_k = epsilon.segment(ro, r);
    epsilon_k = generalized_force.segment(ro, r);
    epsilon_k.noalias() -= model.hinge_map(k) * z_k;
    auto nu_k = nu.segment(ro, r);
    nu_k = epsilon_k;
    if (articulated.massless[k])
      nu_k.setZero();  // a massless node's acceleration is prescribed (zero), not computed
    else
      solve_innovations_inertia(articulated, k, Eigen::Map<Eigen::MatrixXd>(nu_k.data(), r, 1));
    auto z_plus_k = z_plus.segment(mo, m);
    z_plus_k = z_k;
    z_plus_k.noalias() += articulated.kalman_gain[k] * epsilon_k;
  }

  // Base-to-tips scatter (Eq. 58e-58g) for alpha and thetaddot, and V = A* H* thetadot (Eq. 1).
  Eigen::VectorXd& alpha = workspace.node_acceleration;
  Eigen::VectorXd& velocity = workspace.node_velocity;
  Eigen::VectorXd& thetaddot = workspace.generalized_acceleration;
  const auto post_order = forest.post_order();
  for (auto it = post_order.rbegin(); it != post_order.rend(); ++it) {
    const int k = *it, parent = forest.parent(k);
    const int m = node.dim(k), mo = node.offset(k), r = hinge.dim(k), ro = hinge.offset(k);
    auto alpha_k = alpha.segment(mo, m);
    auto velocity_k = velocity.segment(mo, m);
    if (parent == Forest::kNone) {
      alpha_k.setZero();  // alpha+ of a base node: the (removed) inertial root is at rest
      velocity_k.setZero();
    } else {
      const auto weight = model.weight(k);  // A(parent, k)
      alpha_k.noalias() = weight.transpose() * alpha.segment(node.offset(parent), node.dim(parent));
      velocity_k.noalias() =
          weight.transpose() * velocity.segment(node.offset(parent), node.dim(parent));
    }
    const auto hinge_k = model.hinge_map(k);
    auto thetaddot_k = thetaddot.segment(ro, r);
    thetaddot_k = nu.segment(ro, r);
    thetaddot_k.noalias() -= articulated.kalman_gain[k].transpose() * alpha_k;
    alpha_k.noalias() += hinge_k.transpose() * thetaddot_k;
    if (coriolis_pointer != nullptr) alpha_k += coriolis_pointer->segment(mo, m);
    if (thetadot_pointer != nullptr)
      velocity_k.noalias() += hinge_k.transpose() * thetadot_pointer->segment(ro, r);
  }
  return thetaddot;
}

}  // namespace

// Part II Algorithm 6.1 step 2 (Eq. 58).
const Eigen::VectorXd& forward_dynamics_sweeps(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& thetadot,
    const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    const Eigen::Ref<const Eigen::VectorXd>& coriolis_acceleration,
    const Eigen::Ref<const Eigen::VectorXd>& gyroscopic_force,
    ForwardDynamicsWorkspace& workspace) {
  const BlockLayout& node = model.structure().node;
  check_forward_size("thetadot", thetadot.size(), model.structure().hinge.total());
  check_forward_size("a", coriolis_acceleration.size(), node.total());
  check_forward_size("b", gyroscopic_force.size(), node.total());
  return articulated_body_sweeps(model, &thetadot, generalized_force, &coriolis_acceleration,
                                 &gyroscopic_force, workspace);
}

// Part II Lemma 11, Eq. 51: Algorithm 6.1's sweeps with a = b = 0 evaluate M^-1 T.
const Eigen::VectorXd& apply_mass_matrix_inverse(
    const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& generalized_force,
    ForwardDynamicsWorkspace& workspace) {
  return articulated_body_sweeps(model, nullptr, generalized_force, nullptr, nullptr, workspace);
}

}  // namespace skograph
