#include "skograph/operators/inverse_dynamics.hpp"

#include <stdexcept>
#include <string>

namespace skograph {
namespace {

void check_inverse_size(Eigen::Index actual, Eigen::Index expected, const char* what) {
  if (actual != expected)
    throw std::invalid_argument(std::string("inverse dynamics: ") + what + " has " +
                                std::to_string(actual) + " entries, expected " +
                                std::to_string(expected));
}

void check_inverse_workspace(const SkoModel& model, const InverseDynamicsWorkspace& workspace) {
  const SkoStructure& s = model.structure();
  if (workspace.velocity.size() != s.node.total() ||
      workspace.generalized_force.size() != s.hinge.total() ||
      static_cast<int>(workspace.base_offset.size()) != s.size())
    throw std::invalid_argument("inverse dynamics: workspace was sized for another structure");
}

// Base-to-tips scatter of Algorithm 3.1 (part II Eq. 10). With `with_velocity` false only alpha
// is propagated. `base_acceleration` may be null.
void scatter(const SkoModel& model, bool with_velocity,
             const Eigen::Ref<const Eigen::VectorXd>* thetadot,
             const Eigen::Ref<const Eigen::VectorXd>* thetaddot,
             const Eigen::Ref<const Eigen::VectorXd>& a,
             const Eigen::Ref<const Eigen::VectorXd>* base_acceleration,
             InverseDynamicsWorkspace& workspace) {
  const SkoStructure& s = model.structure();
  const Forest& forest = s.forest;
  const auto order = forest.post_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int k = *it, p = forest.parent(k);
    const int offset = s.node.offset(k), m = s.node.dim(k);
    const int hinge_offset = s.hinge.offset(k), r = s.hinge.dim(k);
    const auto h = model.hinge_map(k);
    auto alpha = workspace.acceleration.segment(offset, m);
    alpha = a.segment(offset, m);
    if (thetaddot) alpha.noalias() += h.transpose() * thetaddot->segment(hinge_offset, r);
    if (with_velocity) {
      auto velocity = workspace.velocity.segment(offset, m);
      velocity.noalias() = h.transpose() * thetadot->segment(hinge_offset, r);
      if (p != Forest::kNone)
        velocity.noalias() += model.weight(k).transpose() *
                              workspace.velocity.segment(s.node.offset(p), s.node.dim(p));
    }
    if (p != Forest::kNone) {
      alpha.noalias() += model.weight(k).transpose() *
                         workspace.acceleration.segment(s.node.offset(p), s.node.dim(p));
    } else if (base_acceleration) {
      alpha += base_acceleration->segment(workspace.base_offset[k], m);
    }
  }
}

// Tips-to-base gather of Algorithm 3.1 (part II Eq. 10).
void gather(const SkoModel& model, const Eigen::Ref<const Eigen::VectorXd>& b,
            InverseDynamicsWorkspace& workspace) {
  const SkoStructure& s = model.structure();
  const Forest& forest = s.forest;
  for (const int k : forest.post_order()) {
    const int offset = s.node.offset(k), m = s.node.dim(k);
    auto force = workspace.force.segment(offset, m);
    force = b.segment(offset, m);
    force.noalias() += model.inertia(k) * workspace.acceleration.segment(offset, m);
    for (const int j : forest.children(k))
      force.noalias() += model.weight(j) * workspace.force.segment(s.node.offset(j), s.node.dim(j));
    workspace.generalized_force.segment(s.hinge.offset(k), s.hinge.dim(k)).noalias() =
        model.hinge_map(k) * force;
  }
}

}  // namespace

InverseDynamicsWorkspace::InverseDynamicsWorkspace(const SkoStructure& structure)
    : velocity(Eigen::VectorXd::Zero(structure.node.total())),
      acceleration(Eigen::VectorXd::Zero(structure.node.total())),
      force(Eigen::VectorXd::Zero(structure.node.total())),
      generalized_force(Eigen::VectorXd::Zero(structure.hinge.total())),
      base_offset(base_acceleration_offsets(structure, base_acceleration_size)) {}

std::vector<int> base_acceleration_offsets(const SkoStructure& structure, int& size) {
  std::vector<int> offset(static_cast<std::size_t>(structure.size()), -1);
  size = 0;
  for (const int k : structure.forest.bases()) {
    offset[static_cast<std::size_t>(k)] = size;
    size += structure.node.dim(k);
  }
  return offset;
}

namespace {

// Algorithm 3.1 with an optional base acceleration (nullptr: the inertial root is at rest).
const Eigen::VectorXd& newton_euler(const SkoModel& model,
                                    const Eigen::Ref<const Eigen::VectorXd>& thetadot,
                                    const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
                                    const Eigen::Ref<const Eigen::VectorXd>& a,
                                    const Eigen::Ref<const Eigen::VectorXd>& b,
                                    const Eigen::Ref<const Eigen::VectorXd>* base_acceleration,
                                    InverseDynamicsWorkspace& workspace) {
  const SkoStructure& s = model.structure();
  check_inverse_workspace(model, workspace);
  check_inverse_size(thetadot.size(), s.hinge.total(), "thetadot");
  check_inverse_size(thetaddot.size(), s.hinge.total(), "thetaddot");
  check_inverse_size(a.size(), s.node.total(), "a");
  check_inverse_size(b.size(), s.node.total(), "b");
  if (base_acceleration != nullptr)
    check_inverse_size(base_acceleration->size(), workspace.base_acceleration_size,
                       "base_acceleration");
  scatter(model, true, &thetadot, &thetaddot, a, base_acceleration, workspace);
  gather(model, b, workspace);
  return workspace.generalized_force;
}

}  // namespace

// Part II Algorithm 3.1, Eq. 10.
const Eigen::VectorXd& inverse_dynamics(const SkoModel& model,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetadot,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
                                        const Eigen::Ref<const Eigen::VectorXd>& a,
                                        const Eigen::Ref<const Eigen::VectorXd>& b,
                                        InverseDynamicsWorkspace& workspace) {
  return newton_euler(model, thetadot, thetaddot, a, b, nullptr, workspace);
}

// Part II Algorithm 3.1, Eq. 10, with the inertial root's acceleration entering at the bases.
const Eigen::VectorXd& inverse_dynamics(const SkoModel& model,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetadot,
                                        const Eigen::Ref<const Eigen::VectorXd>& thetaddot,
                                        const Eigen::Ref<const Eigen::VectorXd>& a,
                                        const Eigen::Ref<const Eigen::VectorXd>& b,
                                        const Eigen::Ref<const Eigen::VectorXd>& base_acceleration,
                                        InverseDynamicsWorkspace& workspace) {
  return newton_euler(model, thetadot, thetaddot, a, b, &base_acceleration, workspace);
}

// Part II Eq. 3: C = H A (M A* a + b).
const Eigen::VectorXd& generalized_bias(const SkoModel& model,
                                        const Eigen::Ref<const Eigen::VectorXd>& a,
                                        const Eigen::Ref<const Eigen::VectorXd>& b,
                                        InverseDynamicsWorkspace& workspace) {
  const SkoStructure& s = model.structure();
  check_inverse_workspace(model, workspace);
  check_inverse_size(a.size(), s.node.total(), "a");
  check_inverse_size(b.size(), s.node.total(), "b");
  scatter(model, false, nullptr, nullptr, a, nullptr, workspace);
  gather(model, b, workspace);
  return workspace.generalized_force;
}

}  // namespace skograph
