// The model's own steps of preparing a state, shared by its sources (not installed):
//   check_size, check_input      an argument's size (and every entry finite);
//   prepare_state(q, qd)         (q, qd) checked, in the model's dof order, closed for a closed
//                                chain (assembled, qd projected), data.independent set;
//   prepare_input(v, name)       an input (tau, qdd) checked, in the model's dof order.
#pragma once

#include <Eigen/Core>
#include <string>

#include "skograph/model/model_data.hpp"

namespace skograph::model_detail {

// std::invalid_argument when v has not one entry per dof of the model ("NAME has ...").
void check_size(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name);
// check_size, and every entry finite: std::invalid_argument "q is not a finite number at dof
// 'joint7' (nan)" (the Python module's words for the same problem).
void check_input(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name);
// (q, qd) (file order) into data.state.q and data.state.qd in the model's order, closed for a
// closed chain, with data.independent and data.moved set; no allocation once data has seen a
// state (data.independent rebuilt only when the independent coordinates change). Returns
// data.state, valid until the next preparation.
const ModelData::State& prepare_state(const Model& model, ModelData& data,
                                      const Eigen::Ref<const Eigen::VectorXd>& q,
                                      const Eigen::Ref<const Eigen::VectorXd>& qd);
// UsageError "FILE: WHAT do not take flexible links yet (docs/flexible-bodies.md lists what does)"
// for a model with flexible links: the calls whose rigid-node walks do not know modal coordinates.
void require_rigid_links(const Model& model, const std::string& what);
// The same for the closed-chain calls that do not take flexible links in a loop yet.
void require_rigid_loops(const Model& model, const std::string& what);
// `input` (file order, checked as `name`) into data.state.input in the model's order.
void prepare_input(const Model& model, ModelData& data,
                   const Eigen::Ref<const Eigen::VectorXd>& input, const char* name);

}  // namespace skograph::model_detail
