// The dof order of a model file against the order the recursions walk (rigid/tree_order.hpp):
// every dof-ordered input and output of the library and the program is mapped at this boundary.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

// The file's dof order against the model's: build_model lists the joints depth first
// (rigid/tree_order.hpp), so that the recursions walk their arrays in order, and every
// dof-ordered output is mapped back to the file's order here, at the boundary. Identity when the
// file lists its joints depth first already (most robot files).
class DofOrder {
 public:
  DofOrder() = default;
  // `file` and `model` list the same joints (by name), in two orders.
  DofOrder(const Mechanism& file, const Mechanism& model);
  bool identity() const { return identity_; }
  // The dof names in the file's order.
  const std::vector<std::string>& names() const { return names_; }
  // Position in the file's order of model dof i / model joint j.
  int file_dof(int i) const { return identity_ ? i : file_dof_[static_cast<std::size_t>(i)]; }
  // Joints past the file's (the closed-chain model appends a massless carrier for a loop's end on
  // a flexible link) keep their position.
  int file_joint(int j) const {
    return identity_ || j >= static_cast<int>(file_joint_.size())
               ? j
               : file_joint_[static_cast<std::size_t>(j)];
  }
  // A vector in model dof order, in the file's order; a matrix with rows (and columns) so.
  Eigen::VectorXd vector(const Eigen::VectorXd& model_order) const;
  Eigen::MatrixXd rows(const Eigen::MatrixXd& model_order) const;
  Eigen::MatrixXd symmetric(const Eigen::MatrixXd& model_order) const;
  // The inverse of vector(): a vector in the file's order, in model dof order.
  Eigen::VectorXd model_vector(const Eigen::VectorXd& file_order) const;
  // The same into given storage of the right size (no allocation): `file_order` = vector(...),
  // `model_order` = model_vector(...), `file_order` = symmetric(...). Not in place.
  void to_file(const Eigen::Ref<const Eigen::VectorXd>& model_order,
               Eigen::Ref<Eigen::VectorXd> file_order) const;
  void to_model(const Eigen::Ref<const Eigen::VectorXd>& file_order,
                Eigen::Ref<Eigen::VectorXd> model_order) const;
  void symmetric_to_file(const Eigen::Ref<const Eigen::MatrixXd>& model_order,
                         Eigen::Ref<Eigen::MatrixXd> file_order) const;
  // The positions of `model_dofs` (model dof indices) sorted by their place in the file's order:
  // the order in which a list of independent coordinates is shown.
  std::vector<int> file_sorted(const std::vector<int>& model_dofs) const;
  // The same into given storage (no allocation once it has the size).
  void file_sorted(const std::vector<int>& model_dofs, std::vector<int>& positions) const;

 private:
  bool identity_ = true;
  std::vector<std::string> names_;
  std::vector<int> file_dof_, file_joint_;
};

}  // namespace skograph
