// The operators of part II of a loaded model at one configuration, in the file's dof order
// (docs/operators.md): the innovations factors of M and their inverse, M^-1 by that
// factorization, log det M, the Riccati D per joint, and the operational-space compliance and
// inertia of frames. What `skograph operators` prints and the Python module returns. Trees: the
// mechanism's SKO model, rows the file's dofs. Closed chains: the constraint-embedded model
// (constraint-embedding sections 5-7) at the closed q, whose M is M_R = X* M X, rows the
// independent dofs in the file's order, as `skograph export` (model_sko, model/model.hpp).
//
//   ModelData data(model);
//   const ModelOperators ops = model_operators(model, data, q);
//   // ops.mass_inverse * M = I; ops.innovations_factor * D * ops.innovations_factor* = M
#pragma once

#include <Eigen/Core>
#include <optional>
#include <string>
#include <vector>

#include "skograph/model/dynamics.hpp"

namespace skograph {

struct ModelOperators {
  std::vector<std::string> dofs;        // the rows and columns of every matrix below
  double log_det_mass = 0.0;            // log det M = sum_k log det D(k) (part II Eq. 53)
  Eigen::MatrixXd mass_inverse;         // M^-1 = [I - H psi K]* D^-1 [I - H psi K] (Eq. 51)
  Eigen::MatrixXd innovations_factor;   // [I + H A K], M = [I + H A K] D [I + H A K]* (Eq. 49)
  Eigen::MatrixXd innovations_inverse;  // [I - H psi K] = [I + H A K]^-1 (Eq. 50)
  Eigen::MatrixXd innovations_inertia;  // D = diag(D(k)) in these rows
  // D(k) = H(k) P(k) H*(k) per joint (closed chains: per joint outside the loops and per
  // aggregate), ordered by their first dof in `dofs`, with the names of their dofs.
  std::vector<Eigen::MatrixXd> joint_blocks;
  std::vector<std::vector<std::string>> joint_block_dofs;
};

// Computes everything above at q (closed chains: closed first, as every call of model/model.hpp).
// SingularMassMatrixError naming a joint when M is singular at q (a joint that moves no mass; a
// singular D(k)); Error when the model has more than kOperatorsDofLimit dofs (the results are
// dense N x N matrices: 5000 dofs take 1 GB).
constexpr int kOperatorsDofLimit = 5000;
ModelOperators model_operators(const Model& model, ModelData& data, const Eigen::VectorXd& q);
// log det M alone (Eq. 53): O(N), no dense matrix (trees: M; closed chains: M_R).
double mass_log_determinant(const Model& model, ModelData& data, const Eigen::VectorXd& q);
// M^-1 alone (Eq. 51), rows as ModelOperators::dofs: O(N^2).
Eigen::MatrixXd mass_matrix_inverse(const Model& model, ModelData& data, const Eigen::VectorXd& q);

// The operational-space compliance J M^-1 J* and inertia (J M^-1 J*)^-1 of a frame (part II
// section 6.2, Eq. 59, with the frame's own Jacobian instead of a node's pick-off: M^-1 dense, not
// the Omega recursion of Eq. 60), J its 6 x dofs Jacobian in world axes about the frame's origin
// (frame_jacobian with FrameAxes::kWorld, model/kinematics.hpp; closed chains J X in the
// independent coordinates) and M^-1 from the innovations factorization. The inertia exists only
// where J has full row rank (six independent directions of motion; decided on the compliance
// scaled to a unit diagonal, so that the angular and linear units do not matter): `has_inertia`
// false, and `inertia` empty, otherwise.
struct OperationalSpace {
  Eigen::MatrixXd compliance;  // 6 x 6: [angular; linear] rows and columns
  Eigen::MatrixXd inertia;     // 6 x 6 when has_inertia
  bool has_inertia = false;
};
std::vector<OperationalSpace> operational_space(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q,
                                                const std::vector<std::string>& frames);
// The same with M^-1 already at hand (ModelOperators::mass_inverse at the same q).
std::vector<OperationalSpace> operational_space(const Model& model, ModelData& data,
                                                const Eigen::VectorXd& q,
                                                const std::vector<std::string>& frames,
                                                const Eigen::MatrixXd& mass_inverse);

// The Riccati and Lyapunov quantities of each node of the model's SKO model at q (part II Lemmas
// 4-8): for a tree one node per joint, in the file's joint order, named by its joint; for a closed
// chain the constraint-embedded model's nodes (a joint outside the loops, or an aggregate named by
// its joints joined with '+'), ordered by their first joint in the file. Each block is in its
// node's own frame (a link's frame; an aggregate's member frames stacked, 6|S| rows).
struct NodeQuantities {
  std::vector<std::string> nodes;
  std::vector<Eigen::MatrixXd> composite_inertia;         // R(k), Lemma 4 (forward Lyapunov)
  std::vector<Eigen::MatrixXd> articulated_inertia;       // P(k), Lemma 7 (Riccati)
  std::vector<Eigen::MatrixXd> articulated_inertia_plus;  // P+(k) = tau-bar(k) P(k), Eq. 32
  std::vector<Eigen::MatrixXd> innovations_inertia;       // D(k) = H P H*, Eq. 32
  std::vector<Eigen::MatrixXd> kalman_gain;               // G(k) = P H* D^-1, Eq. 32
  std::vector<Eigen::MatrixXd> compliance;  // Omega(k, k), Lemma 5 (backward Lyapunov, Eq. 23-24)
  // Towards the parent node (empty matrices and "" at a base node): its name, the rigid-body
  // transform phi(p, k) (the SKO weight A(p, k)), K(p, k) = phi G(k) and psi(p, k) =
  // phi tau-bar(k) = phi (I - G H) (Eq. 32-33), so that P(p) = M(p) + sum psi P phi* (Lemma 7).
  std::vector<std::string> parent;
  std::vector<Eigen::MatrixXd> transform, gain_to_parent, projected_transform;
};
NodeQuantities node_quantities(const Model& model, ModelData& data, const Eigen::VectorXd& q);

// Forward dynamics by the families of the serial-chain paper (sections 3-5;
// operators/forward_dynamics_alternatives.hpp), on a tree's SKO model, file order in and out:
// the same qdd as forward_dynamics (model/model.hpp) to roundoff (conjugate gradients: to their
// 1e-14 relative residual). Error for a closed chain (its forward dynamics is constraint
// embedding or the multiplier method) or a model above kOperatorsDofLimit dofs (the dense
// methods); SingularMassMatrixError when M is singular.
enum class ForwardDynamicsMethod {
  kArticulatedBody,                  // O(N), part II Algorithm 6.1 on the SKO model
  kCholesky,                         // O(N^3): M by composite bodies, a dense Cholesky solve
  kInnovations,                      // O(N^2): the innovations factors, triangular solves
  kConjugateGradient,                // O(N) per iteration: M p by Newton-Euler
  kPreconditionedConjugateGradient,  // the same with the block diagonal H R H* of M
  kBaseInvariant  // O(N), free-flying trees only: the free-flying paper's Algorithm 3.3
};
// "articulated-body", "cholesky", "innovations", "conjugate-gradient",
// "preconditioned-conjugate-gradient", "base-invariant"; nullopt otherwise.
std::optional<ForwardDynamicsMethod> parse_forward_dynamics_method(const std::string& name);
Eigen::VectorXd forward_dynamics_by(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                                    const Eigen::VectorXd& qd, const Eigen::VectorXd& tau,
                                    const Eigen::Vector3d& gravity, ForwardDynamicsMethod method);

}  // namespace skograph
