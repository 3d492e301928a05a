// The baseline side of the lane kernels (rigid/lanes.hpp): the choice of instruction set, the
// model's constants as plain arrays, the states' q into the lanes and the call of a kernel.
#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "lane_abi.hpp"
#include "skograph/operators/elimination_order.hpp"
#include "skograph/rigid/lanes.hpp"

namespace skograph {

const char* simd_name(Simd simd) {
  switch (simd) {
    case Simd::kAuto:
      return "auto";
    case Simd::kScalar:
      return "scalar";
    case Simd::kAvx2:
      return "avx2";
    case Simd::kAvx512:
      return "avx512";
  }
  return "?";
}

Simd best_simd() {
#ifdef SKOGRAPH_HAVE_LANE_KERNELS
  // GCC's check reads CPUID and, for these features, that the operating system saves the wide
  // registers (XCR0); xsimd 8's own detection reads CPUID only.
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Simd::kAvx512;
  if (__builtin_cpu_supports("avx2")) return Simd::kAvx2;
#endif
  return Simd::kScalar;
}

int simd_width(Simd simd) {
  switch (simd == Simd::kAuto ? best_simd() : simd) {
    case Simd::kAvx2:
      return 4;
    case Simd::kAvx512:
      return 8;
    default:
      return 1;
  }
}

namespace {

#ifdef SKOGRAPH_HAVE_LANE_KERNELS
const lanes::Kernels& kernels_of(Simd simd) {
  if (simd == Simd::kAvx512) return lanes::avx512::kernels;
  if (simd == Simd::kAvx2) return lanes::avx2::kernels;
  throw std::invalid_argument(std::string("no lane kernels for '") + simd_name(simd) + "'");
}
#endif

}  // namespace

namespace {

// How the lanes make node k's joint transform from its q (lane_abi.hpp: TreeView::joint_kind): a
// turn about a coordinate axis of its frame or about another axis, a slide, a ball joint's or a
// free joint's rotation vector (and translation), or a fixed joint's origin.
int lane_joint_kind(const RigidBodyModel& model, int k) {
  if (model.coordinate_axis(k) != 0) return lanes::kJointTurn;
  switch (model.joint_geometry(k).type) {
    case JointType::kRevolute:
    case JointType::kContinuous:
      return lanes::kJointTurnAbout;
    case JointType::kPrismatic:
      return lanes::kJointSlide;
    case JointType::kSpherical:
      return lanes::kJointBall;
    case JointType::kFloating:
      return lanes::kJointFree;
    default:  // fixed (planar joints are not supported)
      return lanes::kJointFixed;
  }
}

}  // namespace

bool supports_lanes(const RigidBodyModel& model) {
  if (model.has_flexible_links()) return false;
  // The kernels know these joints' hinges: none, one column, or the first 3 or 6 columns of the
  // identity (lane_kernels.hpp); any other joint type runs state by state.
  for (int k = 0; k < model.node_count(); ++k) {
    switch (model.joint_geometry(k).type) {
      case JointType::kFixed:
      case JointType::kRevolute:
      case JointType::kContinuous:
      case JointType::kPrismatic:
      case JointType::kSpherical:
      case JointType::kFloating:
        break;
      default:
        return false;
    }
  }
  return true;
}

bool supports_forward_derivative_lanes(const RigidBodyModel& model) {
  if (!supports_lanes(model) || model.dof_count() == 0) return false;
  for (int k = 0; k < model.node_count(); ++k)
    if (model.joint_dofs(k) > 0 && model.carries_no_mass(k)) return false;
  const std::vector<int> parent = dof_parents(*model.structure());
  for (std::size_t i = 0; i < parent.size(); ++i)
    if (parent[i] >= static_cast<int>(i)) return false;
  return true;
}

LaneTree::LaneTree(const RigidBodyModel& model)
    : dof_count_(model.dof_count()),
      order_(model.parents_first()),
      parent_(model.parents()),
      dofs_(static_cast<std::size_t>(model.node_count())),
      offset_(static_cast<std::size_t>(model.node_count())),
      hinge_(6 * static_cast<std::size_t>(model.node_count()), 0.0),
      inertia_(13 * static_cast<std::size_t>(model.node_count()), 0.0),
      massless_(static_cast<std::size_t>(model.node_count())),
      joint_kind_(static_cast<std::size_t>(model.node_count())),
      joint_axis_(static_cast<std::size_t>(model.node_count()), 0),
      origin_(15 * static_cast<std::size_t>(model.node_count()), 0.0),
      position_(static_cast<std::size_t>(model.node_count())),
      subtree_end_(static_cast<std::size_t>(model.node_count())),
      dof_at_(model.dof_in_preorder()),
      dof_parent_(dof_parents(*model.structure())),
      dof_last_descendant_(static_cast<std::size_t>(model.dof_count())) {
  supported_ = supports_lanes(model);
  for (int k = 0; k < model.node_count(); ++k) {
    const auto at = static_cast<std::size_t>(k);
    dofs_[at] = model.joint_dofs(k);
    offset_[at] = model.joint_dof_offset(k);
    massless_[at] = model.carries_no_mass(k) ? 1 : 0;
    position_[at] = model.subtree_position(k);
    subtree_end_[at] = model.subtree_position(k) + model.subtree_dof_count(k);
    joint_kind_[at] = lane_joint_kind(model, k);
    joint_axis_[at] = std::abs(model.coordinate_axis(k)) - 1;  // -1 unless a kJointTurn: unused
    double* origin = &origin_[15 * at];
    for (int i = 0; i < 9; ++i) origin[i] = model.origin_rotation(k).data()[i];
    for (int i = 0; i < 3; ++i) origin[9 + i] = model.origin_translation(k)[i];
    if (model.joint_dofs(k) == 1)  // a 1-dof joint's unit axis (the others have none)
      for (int i = 0; i < 3; ++i) origin[12 + i] = model.joint_geometry(k).axis[i];
    if (dofs_[at] == 1)
      for (int i = 0; i < 6; ++i)
        hinge_[6 * at + static_cast<std::size_t>(i)] = model.hinge_column(k)[i];
    const kernels::RigidInertia& inertia = model.rigid_inertia(k);
    double* to = &inertia_[13 * at];
    to[0] = inertia.mass;
    for (int i = 0; i < 3; ++i) to[1 + i] = inertia.first_moment[i];
    for (int i = 0; i < 9; ++i) to[4 + i] = inertia.rotational.data()[i];  // column by column
  }
  forward_derivatives_supported_ = supports_forward_derivative_lanes(model);
  for (int i = 0; i < dof_count_; ++i) dof_last_descendant_[static_cast<std::size_t>(i)] = i;
  if (forward_derivatives_supported_)
    for (int i = dof_count_ - 1; i >= 0; --i)
      if (const int p = dof_parent_[static_cast<std::size_t>(i)]; p >= 0)
        dof_last_descendant_[static_cast<std::size_t>(p)] =
            std::max(dof_last_descendant_[static_cast<std::size_t>(p)],
                     dof_last_descendant_[static_cast<std::size_t>(i)]);
  // M(i, j) can be nonzero only when one joint is the other's ancestor (or the same joint).
  for (int k = 0; k < model.node_count(); ++k)
    for (int c = 0; c < model.joint_dofs(k); ++c) {
      const int column = model.joint_dof_offset(k) + c;
      for (int j = k; j >= 0; j = model.parents()[static_cast<std::size_t>(j)])
        for (int r = 0; r < model.joint_dofs(j); ++r) {
          const int row = model.joint_dof_offset(j) + r;
          if (j != k || r <= c)
            mass_entries_.push_back({std::min(row, column), std::max(row, column)});
        }
    }
  std::sort(mass_entries_.begin(), mass_entries_.end(), [](const MassEntry& a, const MassEntry& b) {
    return a.row != b.row ? a.row < b.row : a.column < b.column;
  });
}

LaneWork::LaneWork(const RigidBodyModel& model, Simd simd) : width(simd_width(simd)) {
  const auto states = static_cast<std::size_t>(width);
  const auto nodes = static_cast<std::size_t>(model.node_count());
  const auto dofs = static_cast<std::size_t>(model.dof_count());
  rotation.assign(9 * nodes * states, 0.0);
  translation.assign(3 * nodes * states, 0.0);
  qd.assign(dofs * states, 0.0);
  qdd.assign(dofs * states, 0.0);
  tau.assign(dofs * states, 0.0);
  q.assign(dofs * states, 0.0);
  singular.assign(states, 0.0);
  work.assign(static_cast<std::size_t>(lanes::work_entries(model.node_count())) * states, 0.0);
}

void set_lane_configuration(const RigidBodyModel& model, const double* q, int lane,
                            LaneWork& work) {
  const auto width = static_cast<std::size_t>(work.width);
  double* to = work.q.data() + lane;
  for (int i = 0; i < model.dof_count(); ++i) to[static_cast<std::size_t>(i) * width] = q[i];
}

namespace {

// kernel(tree, work's block) on `simd`'s lanes.
void run_kernel(const LaneTree& tree, Simd simd, const Eigen::Vector3d& gravity, LaneWork& work,
                lanes::Kernel lanes::Kernels::*kernel, const char* name) {
  if (!tree.supported())
    throw std::invalid_argument(std::string(name) +
                                ": the model has planar joints or flexible links");
#ifdef SKOGRAPH_HAVE_LANE_KERNELS
  const lanes::Kernels& kernels = kernels_of(simd);
  const auto nodes = static_cast<std::size_t>(tree.nodes()),
             dofs = static_cast<std::size_t>(tree.dof_count()),
             width = static_cast<std::size_t>(work.width);
  if (kernels.width != work.width || work.rotation.size() != 9 * nodes * width ||
      work.translation.size() != 3 * nodes * width || work.q.size() != dofs * width ||
      work.qd.size() != dofs * width || work.qdd.size() != dofs * width ||
      work.tau.size() != dofs * width || work.singular.size() != width)
    throw std::invalid_argument(std::string(name) +
                                ": the workspace was made for another model or width");
  const lanes::TreeView view{tree.nodes(),
                             tree.dof_count(),
                             tree.order().data(),
                             tree.parent().data(),
                             tree.dofs().data(),
                             tree.offset().data(),
                             tree.hinge().data(),
                             tree.inertia().data(),
                             tree.massless().data(),
                             tree.joint_kind().data(),
                             tree.joint_axis().data(),
                             tree.origin().data(),
                             tree.position().data(),
                             tree.subtree_end().data(),
                             tree.dof_at().data(),
                             tree.dof_parent().data(),
                             tree.dof_last_descendant().data()};
  const double g[3] = {gravity.x(), gravity.y(), gravity.z()};
  const lanes::Block block{work.rotation.data(), work.translation.data(), work.q.data(),
                           work.qd.data(),       work.qdd.data(),         g,
                           work.tau.data(),      work.mass.data(),        work.singular.data(),
                           work.work.data(),     work.derivatives.data()};
  kernels.joint_transforms(view, block);
  (kernels.*kernel)(view, block);
#else
  (void)gravity;
  (void)work;
  (void)kernel;
  throw std::invalid_argument(std::string(name) + ": this build has no lane kernels ('" +
                              simd_name(simd) + "')");
#endif
}

}  // namespace

void inverse_dynamics_lanes(const LaneTree& tree, Simd simd, const Eigen::Vector3d& gravity,
                            LaneWork& work) {
  run_kernel(tree, simd, gravity, work, &lanes::Kernels::inverse_dynamics,
             "inverse_dynamics_lanes");
}

void forward_dynamics_lanes(const LaneTree& tree, Simd simd, const Eigen::Vector3d& gravity,
                            LaneWork& work) {
  // Grown here, not with the workspace: the articulated-body quantities are the largest.
  const auto entries = static_cast<std::size_t>(
      lanes::forward_dynamics_entries(tree.nodes(), tree.dof_count()) * work.width);
  if (work.work.size() < entries) work.work.assign(entries, 0.0);
  run_kernel(tree, simd, gravity, work, &lanes::Kernels::forward_dynamics,
             "forward_dynamics_lanes");
}

void mass_matrix_lanes(const LaneTree& tree, Simd simd, LaneWork& work) {
  // Made here, not with the workspace: inverse dynamics never needs its dofs^2 width numbers.
  const auto dofs = static_cast<std::size_t>(tree.dof_count());
  if (work.mass.size() != dofs * dofs * static_cast<std::size_t>(work.width))
    work.mass.assign(dofs * dofs * static_cast<std::size_t>(work.width), 0.0);
  const auto entries = static_cast<std::size_t>(
      lanes::mass_matrix_entries(tree.nodes(), tree.dof_count()) * work.width);
  if (work.work.size() < entries) work.work.assign(entries, 0.0);
  run_kernel(tree, simd, Eigen::Vector3d::Zero(), work, &lanes::Kernels::mass_matrix,
             "mass_matrix_lanes");
}

namespace {

// Made here, not with the workspace: only the derivatives need their `matrices` dofs^2 width
// numbers (at least: the forward derivatives' six hold the inverse ones' three).
void grow_for_derivatives(const LaneTree& tree, int matrices, LaneWork& work) {
  const auto dofs = static_cast<std::size_t>(tree.dof_count());
  const std::size_t size =
      static_cast<std::size_t>(matrices) * dofs * dofs * static_cast<std::size_t>(work.width);
  if (work.derivatives.size() < size) work.derivatives.assign(size, 0.0);
  const auto entries = static_cast<std::size_t>(
      lanes::derivatives_entries(tree.nodes(), tree.dof_count()) * work.width);
  if (work.work.size() < entries) work.work.assign(entries, 0.0);
}

}  // namespace

void inverse_dynamics_derivatives_lanes(const LaneTree& tree, Simd simd,
                                        const Eigen::Vector3d& gravity, LaneWork& work) {
  grow_for_derivatives(tree, 3, work);
  run_kernel(tree, simd, gravity, work, &lanes::Kernels::inverse_dynamics_derivatives,
             "inverse_dynamics_derivatives_lanes");
}

void forward_dynamics_derivatives_lanes(const LaneTree& tree, Simd simd,
                                        const Eigen::Vector3d& gravity, LaneWork& work) {
  if (!tree.forward_derivatives_supported())
    throw std::invalid_argument(
        "forward_dynamics_derivatives_lanes: a dof moves no mass or comes before its parent");
  grow_for_derivatives(tree, 6, work);
  run_kernel(tree, simd, gravity, work, &lanes::Kernels::forward_dynamics_derivatives,
             "forward_dynamics_derivatives_lanes");
}

}  // namespace skograph
