// A model linearized at a state, the forces that hold it and its rest configuration
// (model/linearization.hpp), from the derivatives of model/derivatives.hpp.
#include "skograph/model/linearization.hpp"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <unsupported/Eigen/MatrixFunctions>

#include "skograph/graph/error.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/model/state.hpp"
#include "skograph/rigid/spatial.hpp"
#include "skograph/rigid/tangent.hpp"
#include "state_internal.hpp"

namespace skograph {

namespace {

// The joint type of each dof in the file's order; a flexible link's modal coordinates, which
// belong to no joint, kFixed.
std::vector<JointType> dof_types(const Model& model) {
  const RigidBodyModel& tree = model.tree();
  std::vector<JointType> types(static_cast<std::size_t>(model.dof_count()));
  for (int k = 0; k < tree.node_count(); ++k)
    for (int c = 0; c < tree.joint_dofs(k); ++c)
      types[static_cast<std::size_t>(model.dof_order().file_dof(tree.joint_dof_offset(k) + c))] =
          tree.joint_geometry(k).type;
  return types;
}

// d/dt of the tangent coordinates of q0 (+) delta moving with rates qd0 + dqd: ddelta/dt = dqd -
// ad(qd0) delta on spherical (the rotation's rate w: -[w]) and floating joints (the body twist
// [w; v]: -[[w~, 0], [v~, w~]]); zero on the others. File order.
Eigen::MatrixXd tangent_drift(const Model& model, const Eigen::VectorXd& qd) {
  const int n = model.dof_count();
  Eigen::MatrixXd drift = Eigen::MatrixXd::Zero(n, n);
  const RigidBodyModel& tree = model.tree();
  const DofOrder& order = model.dof_order();
  for (int k = 0; k < tree.node_count(); ++k) {
    const JointType type = tree.joint_geometry(k).type;
    if (type != JointType::kSpherical && type != JointType::kFloating) continue;
    const int offset = tree.joint_dof_offset(k);
    // The joint's dofs are contiguous in the model's order; map each to the file's.
    const auto at = [&](int a) { return order.file_dof(offset + a); };
    Eigen::Vector3d w, v = Eigen::Vector3d::Zero();
    for (int a = 0; a < 3; ++a) w[a] = qd[at(a)];
    if (type == JointType::kFloating)
      for (int a = 0; a < 3; ++a) v[a] = qd[at(3 + a)];
    const Eigen::Matrix3d w_cross = cross_matrix(w), v_cross = cross_matrix(v);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        drift(at(r), at(c)) = -w_cross(r, c);
        if (type == JointType::kFloating) {
          drift(at(3 + r), at(c)) = -v_cross(r, c);
          drift(at(3 + r), at(3 + c)) = -w_cross(r, c);
        }
      }
  }
  return drift;
}

// Eigenvalues by ascending modulus, then imaginary part, then real part; the oscillatory modes from
// the eigenvectors' q parts, over every dof through `embedding` (X of a closed chain: the
// dependent dofs move with the independent ones; the identity for a tree). Moduli equal but for
// rounding (an inverted pendulum's +-omega) compare equal: they are compared on a grid of 1e-9 of
// the largest, so such a pair is ordered by its imaginary and real parts whatever the rounding.
void eigen_analysis(const Model& model, const Eigen::MatrixXd& embedding, Linearization& result) {
  const Eigen::Index n = result.A.rows() / 2;
  Eigen::EigenSolver<Eigen::MatrixXd> solver(result.A, true);
  if (solver.info() != Eigen::Success)
    throw UsageError(model.file() + ": the eigenvalues of A did not converge");
  const Eigen::VectorXcd values = solver.eigenvalues();
  const double grid = 1e-9 * std::max(values.cwiseAbs().maxCoeff(), 1e-300);
  std::vector<int> order(static_cast<std::size_t>(values.size()));
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = static_cast<int>(i);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const double ma = std::round(std::abs(values[a]) / grid);
    const double mb = std::round(std::abs(values[b]) / grid);
    if (ma != mb) return ma < mb;
    if (values[a].imag() != values[b].imag()) return values[a].imag() < values[b].imag();
    return values[a].real() < values[b].real();
  });
  result.eigenvalues.resize(values.size());
  for (std::size_t i = 0; i < order.size(); ++i)
    result.eigenvalues[static_cast<Eigen::Index>(i)] = values[order[i]];
  const Eigen::MatrixXcd vectors = solver.eigenvectors();
  for (const int i : order) {
    const std::complex<double> lambda = values[i];
    const double modulus = std::abs(lambda);
    if (!(lambda.imag() > 1e-9 * modulus)) continue;  // one of each pair, oscillatory only
    const Eigen::VectorXcd q_part = embedding.cast<std::complex<double>>() * vectors.col(i).head(n);
    Eigen::Index largest = 0;
    q_part.cwiseAbs().maxCoeff(&largest);
    OscillatoryMode mode;
    mode.frequency_hz = modulus / (2.0 * std::numbers::pi);
    mode.damping_ratio = -lambda.real() / modulus;
    mode.shape = (q_part / q_part[largest]).real();
    result.modes.push_back(std::move(mode));
  }
  std::stable_sort(result.modes.begin(), result.modes.end(),
                   [](const OscillatoryMode& a, const OscillatoryMode& b) {
                     return a.frequency_hz < b.frequency_hz;
                   });
}

// UsageError "FILE: WHAT not finite at this state" unless `finite` (overflowing states).
void require_finite(const Model& model, bool finite, const char* what) {
  if (!finite) throw UsageError(model.file() + ": " + what + " not finite at this state");
}

UsageError no_minimum(const Model& model) {
  return UsageError(model.file() +
                    ": no rest configuration near the state: the potential has no minimum "
                    "reachable from it (something falls or slides away under gravity)");
}

// The file-order indices of the dofs named `names` (names a derivatives' result gave).
std::vector<int> dof_indices(const Model& model, const std::vector<std::string>& names) {
  std::vector<int> result;
  for (const std::string& name : names)
    for (int i = 0; i < model.dof_count(); ++i)
      if (model.dof_names()[static_cast<std::size_t>(i)] == name) result.push_back(i);
  return result;
}

// The input dofs: `names` as input_dofs takes them, but for a closed chain with none named its
// independent dofs (`independent`, file order).
std::vector<int> inputs_of(const Model& model, const std::vector<std::string>& names,
                           const std::vector<std::string>& independent) {
  if (!model.is_closed_chain() || !names.empty()) return input_dofs(model, names);
  return dof_indices(model, independent);
}

// The rows of the independent dofs (`names`) of a file-order matrix or vector.
Eigen::MatrixXd independent_rows(const Model& model, const Eigen::Ref<const Eigen::MatrixXd>& full,
                                 const std::vector<std::string>& names) {
  const std::vector<int> at = dof_indices(model, names);
  Eigen::MatrixXd rows(static_cast<Eigen::Index>(at.size()), full.cols());
  for (std::size_t a = 0; a < at.size(); ++a)
    rows.row(static_cast<Eigen::Index>(a)) = full.row(at[a]);
  return rows;
}

// UsageError unless the state has a coordinate to move: a mechanism whose loops lock every joint
// (or a model without dofs) has no dynamics to linearize and no configuration to search.
void require_freedom(const Model& model, const std::vector<std::string>& independent) {
  if (!independent.empty()) return;
  if (!model.is_closed_chain())
    throw UsageError(model.file() + ": the model cannot move (it has no degree of freedom)");
  throw UsageError(model.file() +
                   ": the mechanism cannot move at this state (no independent coordinate: its "
                   "loops lock every joint)");
}

// The potential's gradient along the tangent from inverse dynamics at rest: every entry of a
// tree's; a closed chain's at its independent dofs (the reduced forces X* (dV/dq)).
Eigen::VectorXd independent_entries(const Model& model, const InverseDerivatives& at_rest) {
  if (!model.is_closed_chain()) return at_rest.tau;
  return independent_rows(model, at_rest.tau, at_rest.independent).col(0);
}

// Whether `dof` is dof k of a multi-dof joint `joint` ("joint:k"); a flexible link of the same
// name has modal coordinates "joint:eta1", which are not the joint's.
bool dof_of_joint(const std::string& dof, const std::string& joint) {
  if (dof.size() <= joint.size() + 1 || !dof.starts_with(joint + ":")) return false;
  return std::all_of(dof.begin() + static_cast<std::ptrdiff_t>(joint.size()) + 1, dof.end(),
                     [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

std::vector<int> input_dofs(const Model& model, const std::vector<std::string>& names) {
  const std::vector<std::string>& dofs = model.dof_names();
  std::vector<int> result;
  if (names.empty()) {
    const std::vector<JointType> types = dof_types(model);
    // Joints drive; floating joints and modal coordinates (no actuator acts on a mode) do not.
    for (int i = 0; i < model.dof_count(); ++i)
      if (types[static_cast<std::size_t>(i)] != JointType::kFloating &&
          types[static_cast<std::size_t>(i)] != JointType::kFixed)
        result.push_back(i);
    return result;
  }
  for (const std::string& name : names) {
    bool found = false;
    for (int i = 0; i < model.dof_count(); ++i) {
      const std::string& dof = dofs[static_cast<std::size_t>(i)];
      if (dof != name && !dof_of_joint(dof, name)) continue;
      if (std::ranges::find(result, i) != result.end())
        throw UsageError("the input '" + name + "' is given twice");
      result.push_back(i);
      found = true;
    }
    if (!found)
      throw UsageError("unknown input '" + name + "': not a joint or dof of " + model.file());
  }
  return result;
}

Linearization linearize(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                        const std::vector<std::string>& inputs, double dt,
                        const Eigen::Vector3d& gravity) {
  if (!inputs.empty()) input_dofs(model, inputs);  // unknown names refused before any work
  // A closed chain's state closed first (its drift and X are taken there).
  const ClosedState closed =
      model.is_closed_chain() ? close_state(model, data, q, qd) : ClosedState{q, qd, 0.0};
  ForwardDerivatives forward;  // dqdd's derivatives only: the loop forces' are not needed
  forward_dynamics_derivatives(model, data, closed.q, closed.qd, tau, gravity, forward,
                               LoopForceDerivatives::kWithout);
  require_freedom(model, forward.independent);
  const std::vector<int> input = inputs_of(model, inputs, forward.independent);
  const auto n = static_cast<Eigen::Index>(forward.independent.size());
  const auto m = static_cast<Eigen::Index>(input.size());
  Linearization result;
  for (const std::string& name : forward.independent) result.states.push_back(name);
  for (const std::string& name : forward.independent) result.states.push_back(name + "_qd");
  for (const int i : input) result.inputs.push_back(model.dof_names()[static_cast<std::size_t>(i)]);
  result.A.setZero(2 * n, 2 * n);
  // The tangent's drift on the manifold: d(dq_R)/dt is the independent rows of drift dq with
  // dq = X dq_R (a spherical joint's dofs may be split between q_R and the dependent ones).
  result.A.topLeftCorner(n, n) = independent_rows(
      model, tangent_drift(model, closed.qd) * forward.embedding, forward.independent);
  result.A.topRightCorner(n, n).setIdentity();
  result.A.bottomLeftCorner(n, n) = forward.dqdd_dq;
  result.A.bottomRightCorner(n, n) = forward.dqdd_dqd;
  result.B.setZero(2 * n, m);
  for (Eigen::Index a = 0; a < m; ++a)
    result.B.col(a).tail(n) = forward.dqdd_dtau.col(input[static_cast<std::size_t>(a)]);
  require_finite(model, result.A.allFinite() && result.B.allFinite(), "the linearization is");
  eigen_analysis(model, forward.embedding, result);
  if (dt > 0.0) {
    // Zero-order hold: the exponential of the augmented matrix (Van Loan).
    Eigen::MatrixXd augmented = Eigen::MatrixXd::Zero(2 * n + m, 2 * n + m);
    augmented.topLeftCorner(2 * n, 2 * n) = result.A * dt;
    augmented.topRightCorner(2 * n, m) = result.B * dt;
    const Eigen::MatrixXd exponential = augmented.exp();
    result.A_d = exponential.topLeftCorner(2 * n, 2 * n);
    result.B_d = exponential.topRightCorner(2 * n, m);
  }
  return result;
}

Hold hold(const Model& model, ModelData& data, const Eigen::VectorXd& q,
          const std::vector<std::string>& inputs, const Eigen::Vector3d& gravity) {
  if (!inputs.empty()) input_dofs(model, inputs);
  const int n = model.dof_count();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  // Unforced at rest the state accelerates by qdd = -M^-1 tau_rest (a closed chain's independent
  // rows: -M_R^-1 X* tau_rest, dqdd_dtau M_R^-1 X*), all from one update of its constraints.
  ForwardDerivatives forward;
  forward_dynamics_derivatives(model, data, q, zero, zero, gravity, forward,
                               LoopForceDerivatives::kWithout);
  require_finite(model, forward.qdd.allFinite() && forward.dqdd_dtau.allFinite(),
                 "the forces at rest are");
  require_freedom(model, forward.independent);
  const std::vector<int> input = inputs_of(model, inputs, forward.independent);
  const auto m = static_cast<Eigen::Index>(input.size());
  // min |M^-1 (S u - tau_rest)|: the acceleration the forces leave.
  Eigen::MatrixXd reach(forward.dqdd_dtau.rows(), m);
  for (Eigen::Index a = 0; a < m; ++a)
    reach.col(a) = forward.dqdd_dtau.col(input[static_cast<std::size_t>(a)]);
  const Eigen::VectorXd target = -independent_rows(model, forward.qdd, forward.independent).col(0);
  Hold result;
  for (const int i : input) result.inputs.push_back(model.dof_names()[static_cast<std::size_t>(i)]);
  result.input_forces =
      m == 0 ? Eigen::VectorXd()
             : Eigen::VectorXd(reach.completeOrthogonalDecomposition().solve(target));
  result.tau = zero;
  for (Eigen::Index a = 0; a < m; ++a)
    result.tau[input[static_cast<std::size_t>(a)]] = result.input_forces[a];
  result.residual = (forward.dqdd_dtau * result.tau - target).norm();
  return result;
}

Rest rest(const Model& model, ModelData& data, const Eigen::VectorXd& q,
          const Eigen::Vector3d& gravity) {
  const int n = model.dof_count();
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  constexpr int kIterations = 200;
  constexpr double kLongestStep = 0.5;  // rad or m per Newton step: stay near the start
  Rest result;
  // A closed chain's q closed, and moved on the manifold: along X step, then closed again.
  const bool closed = model.is_closed_chain();
  result.q = closed ? assemble_positions(model, data, q) : q;
  InverseDerivatives at_rest;
  double potential = potential_energy(model, data, result.q, gravity);
  double scale = 0.0;
  bool converged = false;
  int escapes = 0;
  constexpr int kEscapes = 10;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> hessian;
  for (int iteration = 0; iteration < kIterations; ++iteration) {
    // The gradient of the potential along the tangent is the inverse dynamics at rest, its
    // Hessian that gradient's derivative (symmetric at a rest configuration).
    inverse_dynamics_derivatives(model, data, result.q, zero, zero, gravity, at_rest);
    require_freedom(model, at_rest.independent);
    const Eigen::VectorXd gradient = independent_entries(model, at_rest);
    require_finite(model, gradient.allFinite() && at_rest.dtau_dq.allFinite(),
                   "the potential's gradient is");
    hessian.compute(0.5 * (at_rest.dtau_dq + at_rest.dtau_dq.transpose()));
    scale = std::max(scale, gradient.cwiseAbs().maxCoeff());
    const Eigen::VectorXd& values = hessian.eigenvalues();
    const Eigen::MatrixXd& vectors = hessian.eigenvectors();
    const double floor = 1e-8 * std::max(values.cwiseAbs().maxCoeff(), 1e-300);
    Eigen::VectorXd step;
    if (gradient.cwiseAbs().maxCoeff() <= 1e-10 * (1.0 + scale)) {
      // At rest: a minimum unless the potential curves down somewhere (a pendulum upright),
      // then off along that direction, downhill by second order either way.
      if (values[0] >= -floor) {
        converged = true;
        result.iterations = iteration;
        break;
      }
      if (escapes == kEscapes) throw no_minimum(model);
      ++escapes;
      step = 1e-2 * vectors.col(0);
    } else {
      // A descent direction: the Hessian with its eigenvalues made positive (|lambda|, at least
      // a small fraction of the largest).
      step = vectors.transpose() * gradient;
      for (Eigen::Index i = 0; i < step.size(); ++i)
        step[i] /= -std::max(std::abs(values[i]), floor);
      step = vectors * step;
    }
    if (step.norm() > kLongestStep) step *= kLongestStep / step.norm();
    // Backtracking until the potential decreases enough (Armijo).
    const double slope = std::min(gradient.dot(step), 0.0);
    step = at_rest.embedding * step;  // along the manifold, X of the gradient's own update
    double length = 1.0;
    bool descended = false;
    for (int halving = 0; halving < 50; ++halving, length *= 0.5) {
      const Eigen::VectorXd moved = integrate(model, result.q, step, length);
      Eigen::VectorXd trial = moved;
      if (closed) {
        try {
          trial = assemble_positions(model, data, moved);
        } catch (const ClosedChainError&) {
          continue;  // a step too long for the loops to close again: shorter
        }
      }
      const double trial_potential = potential_energy(model, data, trial, gravity);
      if (trial_potential <= potential + 1e-4 * length * slope) {
        result.q = trial;
        potential = trial_potential;
        descended = true;
        break;
      }
    }
    if (!descended) break;  // at the precision's floor: judged by the gradient below
  }
  if (!converged) {
    inverse_dynamics_derivatives(model, data, result.q, zero, zero, gravity, at_rest);
    if (independent_entries(model, at_rest).cwiseAbs().maxCoeff() > 1e-8 * (1.0 + scale))
      throw no_minimum(model);
    hessian.compute(0.5 * (at_rest.dtau_dq + at_rest.dtau_dq.transpose()));
  }
  const Eigen::VectorXd& values = hessian.eigenvalues();
  const double tolerance = 1e-8 * std::max(values.cwiseAbs().maxCoeff(), 1e-300);
  result.stability = values.minCoeff() < -tolerance  ? Stability::kUnstable
                     : values.minCoeff() > tolerance ? Stability::kStable
                                                     : Stability::kMarginal;
  return result;
}

}  // namespace skograph
