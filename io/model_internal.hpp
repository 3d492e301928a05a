// io's own helpers shared by model.cpp and model_kinematics.cpp (not installed).
#pragma once

#include <Eigen/Core>

#include "skograph/io/model.hpp"

namespace skograph::io_detail {

// std::invalid_argument when v has not one entry per dof of the model ("NAME has ...").
void check_size(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name);
// check_size, and every entry finite: std::invalid_argument "q is not a finite number at dof
// 'joint7' (nan)" (the Python module's words for the same problem).
void check_input(const Model& model, const Eigen::Ref<const Eigen::VectorXd>& v, const char* name);
// (q, qd) (file order) in the model's order, closed for a closed chain (close_state), with
// data.independent set.
ClosedState model_state(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd);
// The same into data.state.q and data.state.qd, without allocation once data has seen a state
// (data.independent rebuilt only when the independent coordinates change).
void update_state(const Model& model, ModelData& data, const Eigen::Ref<const Eigen::VectorXd>& q,
                  const Eigen::Ref<const Eigen::VectorXd>& qd);

}  // namespace skograph::io_detail
