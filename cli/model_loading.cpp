#include "model_loading.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <unordered_map>

#include "usage.hpp"
#include "warnings.hpp"
#include "skograph/io/mechanism_file.hpp"
#include "skograph/io/model.hpp"
#include "skograph/io/state_reader.hpp"
#include "skograph/rigid/fixed_body_fusion.hpp"
#include "skograph/rigid/tree_order.hpp"

namespace skograph::cli {

Mechanism load_mechanism(const std::string& file, bool strict, DofOrder* dof_order,
                         const std::vector<std::string>& independent) {
  ReadOptions options;
  options.strict = strict;
  const Mechanism fused =
      fuse_fixed_bodies(with_independent(file, read_mechanism_file(file, options), independent));
  add_warnings(file, fused.warnings);
  Mechanism ordered = depth_first_order(fused);
  if (dof_order) *dof_order = DofOrder(fused, ordered);
  return ordered;
}

Mechanism with_independent(const std::string& file, Mechanism mechanism,
                           const std::vector<std::string>& independent) {
  if (independent.empty()) return mechanism;
  try {
    named_dofs(mechanism, independent);  // every name a moving joint or dof of the file
  } catch (const std::invalid_argument& e) {
    throw UsageError(file + ": --" + e.what());
  }
  mechanism.independent = independent;
  return mechanism;
}

bool is_closed_chain(const Mechanism& mechanism) {
  return !mechanism.loops.empty() || !mechanism.couplings.empty();
}

namespace {

// Massless moving subtrees: refused under --strict, otherwise one warning item.
void check_massless_joints(const std::string& file, const Mechanism& mechanism,
                           const std::vector<int>& joints, bool strict) {
  const std::string problem = massless_joints_message(mechanism, joints, strict);
  if (problem.empty()) return;
  if (strict) throw UsageError(file + ": " + problem);
  add_warnings(file, {problem});
}

}  // namespace

RigidBodyModel load_tree_model(const std::string& file, Mechanism mechanism, bool strict) {
  try {
    RigidBodyModel model(std::move(mechanism));
    check_massless_joints(file, model.mechanism(), model.massless_moving_joints(), strict);
    return model;
  } catch (const std::invalid_argument& e) {
    throw UsageError(naming_file(file, e.what()));
  }
}

ClosedChainModel load_closed_chain_model(const std::string& file, Mechanism mechanism,
                                         bool strict) {
  try {
    ClosedChainModel model(std::move(mechanism));
    check_massless_joints(file, model.mechanism(), model.massless_moving_joints(), strict);
    return model;
  } catch (const std::invalid_argument& e) {
    throw UsageError(naming_file(file, e.what()));
  } catch (const ClosureError& e) {
    throw UsageError(naming_file(file, e.what()));
  }
}

void check_no_force_on_massless_joints(const std::string& file, const RigidBodyModel& tree,
                                       const std::vector<int>& massless_joints,
                                       const Eigen::VectorXd& tau, const std::string& what) {
  const Forest& forest = tree.forest();
  for (int k = 0; k < tree.node_count(); ++k) {
    const int dofs = tree.joint_dofs(k);
    if (dofs == 0 || tau.segment(tree.joint_dof_offset(k), dofs).isZero(0.0)) continue;
    // k moves no mass when it lies at or below one of the top massless joints.
    for (const int top : massless_joints)
      if (forest.is_ancestor_or_self(top, k))
        throw UsageError(file + ": joint '" + tree.mechanism().joints[static_cast<size_t>(k)].name +
                         "' moves no mass (every link below it is massless), so the generalized "
                         "force " +
                         what + " gives it would accelerate nothing");
  }
}

std::string aggregate_links(const ClosedChainModel& model, int s) {
  std::string names;
  for (int node : model.aggregate_nodes(s))
    names += (names.empty() ? "" : ", ") +
             model.mechanism().links[static_cast<size_t>(model.tree().link_of_node(node))].name;
  return names;
}

void note_whole_mechanism(const std::string& file, const ClosedChainModel& model) {
  if (!model.swallows_whole_mechanism()) return;
  add_note(file, "one aggregate holds all " + std::to_string(model.tree().joint_count()) +
                     " joints of the mechanism, so the embedded model is a single node (results "
                     "are exact; the recursions gain nothing from the tree structure)");
}

nlohmann::ordered_json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (Eigen::Index i = 0; i < v.size(); ++i) list.push_back(v(i));
  return list;
}

nlohmann::ordered_json matrix_json(const Eigen::Ref<const Eigen::MatrixXd>& m) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    nlohmann::ordered_json row = nlohmann::ordered_json::array();
    for (Eigen::Index c = 0; c < m.cols(); ++c) row.push_back(m(r, c));
    rows.push_back(row);
  }
  return rows;
}

}  // namespace skograph::cli
