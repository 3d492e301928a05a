// A model linearized at a state (docs/derivatives.md): the state-space matrices of
// x = (q, qd) in tangent coordinates (rigid/tangent.hpp) driven by the forces u of the input dofs,
// their eigenvalues and oscillatory modes, the zero-order-hold discretization; the forces that
// hold a configuration at rest and the nearest rest configuration under gravity. All in the
// file's dof order. A closed chain in its independent coordinates: x = (q_R, qd_R) at the closed
// state, the inputs by default its independent dofs, the rest configuration on the constraint
// manifold (the dependent coordinates closed at every step).
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

#include "skograph/model/state.hpp"

namespace skograph {

// The input dofs (file order positions) a list of names means: a joint's name gives all of its
// dofs, a dof's name ("joint" or "joint:1") that dof. Empty `names`: every dof except floating
// joints' and flexible links' modal coordinates. UsageError naming an unknown name or a name given
// twice.
std::vector<int> input_dofs(const Model& model, const std::vector<std::string>& names);

struct OscillatoryMode {
  double frequency_hz = 0.0;   // |lambda| / 2 pi
  double damping_ratio = 0.0;  // -Re(lambda) / |lambda|
  // The eigenvector's q part over every dof (a closed chain's X v_R: the dependent dofs moving
  // with the independent ones), largest entry 1.
  Eigen::VectorXd shape;
};

struct Linearization {
  // The dofs' names (a closed chain's independent dofs), then the same with "_qd".
  std::vector<std::string> states;
  std::vector<std::string> inputs;  // the input dofs' names
  // dx/dt = A dx + B du: A = [[-ad(qd), 1], [dqdd/dq, dqdd/dqd]] (the first block is zero except
  // for spherical and floating joints moving at the operating point), B = [0; M^-1 S].
  Eigen::MatrixXd A, B;
  // By ascending modulus, then imaginary part, then real part.
  Eigen::VectorXcd eigenvalues;
  // One per oscillatory pair (Im(lambda) > 1e-9 |lambda|), by ascending frequency.
  std::vector<OscillatoryMode> modes;
  // With a step dt > 0: exp([[A, B], [0, 0]] dt) = [[A_d, B_d], [0, 1]] (zero-order hold).
  Eigen::MatrixXd A_d, B_d;
};

// At (q, qd) with the forces tau on every dof (file order); `inputs` as input_dofs takes them;
// dt <= 0: no discretization. SingularMassMatrixError where forward dynamics raises it.
Linearization linearize(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                        const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                        const std::vector<std::string>& inputs, double dt,
                        const Eigen::Vector3d& gravity = kStandardGravity);

// The input forces that keep q at rest (qd = qdd = 0): inverse dynamics at rest when the inputs
// reach every loaded dof, otherwise the least-squares forces that leave the smallest
// acceleration, M^-1 (S u - tau_rest), whose norm is the residual.
struct Hold {
  std::vector<std::string> inputs;
  Eigen::VectorXd input_forces;  // one per input
  Eigen::VectorXd tau;           // the same over every dof (file order; zero off the inputs)
  double residual = 0.0;         // |qdd| left (0 when the inputs hold q)
};
Hold hold(const Model& model, ModelData& data, const Eigen::VectorXd& q,
          const std::vector<std::string>& inputs,
          const Eigen::Vector3d& gravity = kStandardGravity);

// The nearest rest configuration of the unactuated model under gravity from q: the potential's
// minimum by Newton steps on its gradient (inverse dynamics at rest) and Hessian (its derivative
// along the tangent), descending. Stability from the Hessian there: positive definite kStable, a
// negative eigenvalue kUnstable, otherwise kMarginal (neutral directions: a joint about the
// vertical, a massless joint). UsageError "no rest configuration ..." when the potential has no
// minimum reachable from q (a free body falls, a slider slides away).
enum class Stability { kStable, kUnstable, kMarginal };
struct Rest {
  Eigen::VectorXd q;  // file order
  Stability stability = Stability::kStable;
  int iterations = 0;
};
Rest rest(const Model& model, ModelData& data, const Eigen::VectorXd& q,
          const Eigen::Vector3d& gravity = kStandardGravity);

}  // namespace skograph
