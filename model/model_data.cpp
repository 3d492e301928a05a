// ModelData (model/model_data.hpp): the workspace of the calls on a model.
#include "skograph/model/model_data.hpp"

#include <stdexcept>

namespace skograph {

ModelData::ModelData(const Model& model) {
  if (model.is_closed_chain())
    closed_chain_ = std::make_unique<ClosedChainData>(*model.closed_chain());
  else
    tree_ = std::make_unique<RigidBodyData>(model.tree());
}
ModelData::~ModelData() = default;
ModelData::ModelData(ModelData&&) noexcept = default;
ModelData& ModelData::operator=(ModelData&&) noexcept = default;
RigidBodyData& ModelData::tree() {
  return closed_chain_ ? closed_chain_->tree : *tree_;
}
ClosedChainData* ModelData::closed_chain() {
  return closed_chain_.get();
}
MultiplierWorkspace& ModelData::multiplier_workspace(const Model& model) {
  if (!model.is_closed_chain())
    throw std::invalid_argument("the multiplier method needs a closed chain; a tree has no rows");
  if (!multipliers_) multipliers_ = std::make_unique<MultiplierWorkspace>(*model.closed_chain());
  return *multipliers_;
}

ModelData::Lanes::Lanes(const RigidBodyModel& model, const DofOrder& order, Simd simd)
    : tree(model), work(model, simd), simd(simd) {
  const long n = model.dof_count(), width = work.width;
  for (const LaneTree::MassEntry& entry : tree.mass_entries()) {
    const long i = order.file_dof(entry.row), j = order.file_dof(entry.column);
    mass_placement.push_back({(entry.row * n + entry.column) * width, i * n + j, j * n + i});
  }
}

ModelData::Lanes& ModelData::lanes(const Model& model, Simd simd) {
  if (!lanes_ || lanes_->simd != simd)
    lanes_ = std::make_unique<Lanes>(model.tree(), model.dof_order(), simd);
  return *lanes_;
}

}  // namespace skograph
