#include "cli/model_loading.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>
#include <unordered_map>

#include "cli/usage.hpp"
#include "cli/warnings.hpp"
#include "io/mechanism_file.hpp"
#include "io/state_reader.hpp"
#include "rigid/fixed_body_fusion.hpp"
#include "rigid/tree_order.hpp"

namespace skograph::cli {

DofOrder::DofOrder(const Mechanism& file, const Mechanism& model) : names_(dof_names(file)) {
  std::unordered_map<std::string, int> file_joint_index;
  std::vector<int> file_offset;
  int offset = 0;
  for (std::size_t j = 0; j < file.joints.size(); ++j) {
    file_joint_index.emplace(file.joints[j].name, static_cast<int>(j));
    file_offset.push_back(offset);
    offset += joint_dof_count(file.joints[j].type);
  }
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    const auto it = file_joint_index.find(model.joints[j].name);
    const int f = it == file_joint_index.end() ? static_cast<int>(j) : it->second;
    file_joint_.push_back(f);
    identity_ = identity_ && f == static_cast<int>(j);
    for (int d = 0; d < joint_dof_count(model.joints[j].type); ++d)
      file_dof_.push_back(file_offset[static_cast<std::size_t>(f)] + d);
  }
}

Eigen::VectorXd DofOrder::vector(const Eigen::VectorXd& model_order) const {
  if (identity_) return model_order;
  Eigen::VectorXd result(model_order.size());
  for (Eigen::Index i = 0; i < model_order.size(); ++i)
    result(file_dof(static_cast<int>(i))) = model_order(i);
  return result;
}

Eigen::MatrixXd DofOrder::rows(const Eigen::MatrixXd& model_order) const {
  if (identity_) return model_order;
  Eigen::MatrixXd result(model_order.rows(), model_order.cols());
  for (Eigen::Index i = 0; i < model_order.rows(); ++i)
    result.row(file_dof(static_cast<int>(i))) = model_order.row(i);
  return result;
}

Eigen::MatrixXd DofOrder::symmetric(const Eigen::MatrixXd& model_order) const {
  if (identity_) return model_order;
  Eigen::MatrixXd result(model_order.rows(), model_order.cols());
  for (Eigen::Index i = 0; i < model_order.rows(); ++i)
    for (Eigen::Index j = 0; j < model_order.cols(); ++j)
      result(file_dof(static_cast<int>(i)), file_dof(static_cast<int>(j))) = model_order(i, j);
  return result;
}

std::vector<int> DofOrder::file_sorted(const std::vector<int>& model_dofs) const {
  std::vector<int> positions(model_dofs.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int>(i);
  std::stable_sort(positions.begin(), positions.end(), [&](int a, int b) {
    return file_dof(model_dofs[static_cast<std::size_t>(a)]) <
           file_dof(model_dofs[static_cast<std::size_t>(b)]);
  });
  return positions;
}

Mechanism load_mechanism(const std::string& file, bool strict, DofOrder* dof_order) {
  ReadOptions options;
  options.strict = strict;
  const Mechanism fused = fuse_fixed_bodies(read_mechanism_file(file, options));
  add_warnings(file, fused.warnings);
  Mechanism ordered = depth_first_order(fused);
  if (dof_order) *dof_order = DofOrder(fused, ordered);
  return ordered;
}

bool is_closed_chain(const Mechanism& mechanism) {
  return !mechanism.loops.empty() || !mechanism.couplings.empty();
}

std::string naming_file(const std::string& file, const std::string& message) {
  return message.rfind(file, 0) == 0 ? message : file + ": " + message;
}

namespace {

std::string joint_list(const Mechanism& mechanism, const std::vector<int>& joints) {
  std::string names;
  for (const int j : joints)
    names += (names.empty() ? "'" : ", '") + mechanism.joints[static_cast<size_t>(j)].name + "'";
  return names;
}

// Massless moving subtrees: refused under --strict, otherwise one warning item.
void check_massless_joints(const std::string& file, const Mechanism& mechanism,
                           const std::vector<int>& joints, bool strict) {
  if (joints.empty()) return;
  const bool one = joints.size() == 1;
  if (strict)
    throw UsageError(file + ": joint " + joint_list(mechanism, {joints.front()}) +
                     " moves no mass (it and every link below it are massless), so the mass "
                     "matrix is singular (--strict refuses massless moving subtrees)");
  add_warnings(file, {std::string(one ? "joint " : "joints ") + joint_list(mechanism, joints) +
                      (one ? " moves" : " move") +
                      " only massless links: the dynamics leave their accelerations at zero and "
                      "they take no force"});
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

Eigen::VectorXd embedding_rate(const ClosedChainModel& model, const ClosedChainData& data) {
  Eigen::VectorXd rate = Eigen::VectorXd::Zero(model.dof_count());
  for (int s = 0; s < model.aggregate_count(); ++s) {
    const std::vector<int>& dofs = model.aggregate_dofs(s);
    const Eigen::VectorXd& local = data.embedding_rate[static_cast<size_t>(s)];
    for (size_t i = 0; i < dofs.size(); ++i) rate(dofs[i]) = local(static_cast<Eigen::Index>(i));
  }
  return rate;
}

}  // namespace skograph::cli
