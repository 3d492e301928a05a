#include "skograph/model/dof_order.hpp"

#include <algorithm>
#include <unordered_map>

#include "skograph/rigid/mechanism.hpp"

namespace skograph {

DofOrder::DofOrder(const Mechanism& file, const Mechanism& model) : names_(dof_names(file)) {
  std::unordered_map<std::string, int> file_joint_index;
  std::vector<int> file_offset;
  int offset = 0;
  for (std::size_t j = 0; j < file.joints.size(); ++j) {
    file_joint_index.emplace(file.joints[j].name, static_cast<int>(j));
    file_offset.push_back(offset);
    offset += joint_coordinate_count(file, static_cast<int>(j));
  }
  for (std::size_t j = 0; j < model.joints.size(); ++j) {
    const auto it = file_joint_index.find(model.joints[j].name);
    const int f = it == file_joint_index.end() ? static_cast<int>(j) : it->second;
    file_joint_.push_back(f);
    identity_ = identity_ && f == static_cast<int>(j);
    for (int d = 0; d < joint_coordinate_count(model, static_cast<int>(j)); ++d)
      file_dof_.push_back(file_offset[static_cast<std::size_t>(f)] + d);
  }
}

Eigen::VectorXd DofOrder::vector(const Eigen::VectorXd& model_order) const {
  if (identity_) return model_order;
  Eigen::VectorXd result(model_order.size());
  to_file(model_order, result);
  return result;
}

Eigen::VectorXd DofOrder::model_vector(const Eigen::VectorXd& file_order) const {
  if (identity_) return file_order;
  Eigen::VectorXd result(file_order.size());
  to_model(file_order, result);
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
  symmetric_to_file(model_order, result);
  return result;
}

void DofOrder::to_file(const Eigen::Ref<const Eigen::VectorXd>& model_order,
                       Eigen::Ref<Eigen::VectorXd> file_order) const {
  for (Eigen::Index i = 0; i < model_order.size(); ++i)
    file_order(file_dof(static_cast<int>(i))) = model_order(i);
}

void DofOrder::to_model(const Eigen::Ref<const Eigen::VectorXd>& file_order,
                        Eigen::Ref<Eigen::VectorXd> model_order) const {
  for (Eigen::Index i = 0; i < file_order.size(); ++i)
    model_order(i) = file_order(file_dof(static_cast<int>(i)));
}

void DofOrder::symmetric_to_file(const Eigen::Ref<const Eigen::MatrixXd>& model_order,
                                 Eigen::Ref<Eigen::MatrixXd> file_order) const {
  for (Eigen::Index j = 0; j < model_order.cols(); ++j)
    for (Eigen::Index i = 0; i < model_order.rows(); ++i)
      file_order(file_dof(static_cast<int>(i)), file_dof(static_cast<int>(j))) = model_order(i, j);
}

std::vector<int> DofOrder::file_sorted(const std::vector<int>& model_dofs) const {
  std::vector<int> positions;
  file_sorted(model_dofs, positions);
  return positions;
}

// std::sort, not stable_sort (which takes a buffer from the heap): distinct dofs have distinct
// file positions, so there are no ties to keep in order.
void DofOrder::file_sorted(const std::vector<int>& model_dofs, std::vector<int>& positions) const {
  positions.resize(model_dofs.size());
  for (std::size_t i = 0; i < positions.size(); ++i) positions[i] = static_cast<int>(i);
  std::sort(positions.begin(), positions.end(), [&](int a, int b) {
    return file_dof(model_dofs[static_cast<std::size_t>(a)]) <
           file_dof(model_dofs[static_cast<std::size_t>(b)]);
  });
}

}  // namespace skograph
