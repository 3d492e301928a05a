// A flexible body's modal data (rigid/modal_body.hpp).
#include "skograph/rigid/modal_body.hpp"

#include <Eigen/Cholesky>
#include <cmath>
#include <stdexcept>

#include "skograph/rigid/spatial.hpp"

namespace skograph {

namespace {

std::string shape(const Eigen::MatrixXd& matrix) {
  return std::to_string(matrix.rows()) + " x " + std::to_string(matrix.cols());
}

// Symmetric up to what a file printed with a few significant digits less than double leaves.
bool symmetric(const Eigen::MatrixXd& matrix) {
  const double scale = matrix.cwiseAbs().maxCoeff();
  return (matrix - matrix.transpose()).cwiseAbs().maxCoeff() <= 1e-9 * scale;
}

bool is_diagonal(const Eigen::MatrixXd& matrix) {
  for (Eigen::Index j = 0; j < matrix.cols(); ++j)
    for (Eigen::Index i = 0; i < matrix.rows(); ++i)
      if (i != j && matrix(i, j) != 0.0) return false;
  return true;
}

// No pivot of the pivoted LDL^T factorization below -1e-12 of the largest: negative, not rounding
// (frequencies and damping ratios give diagonal matrices, checked entry by entry).
bool positive_semidefinite(const Eigen::MatrixXd& matrix) {
  if (matrix.size() == 0) return true;
  const Eigen::VectorXd pivots =
      is_diagonal(matrix) ? Eigen::VectorXd(matrix.diagonal())
                          : Eigen::VectorXd(Eigen::LDLT<Eigen::MatrixXd>(matrix).vectorD());
  return pivots.minCoeff() >= -1e-12 * std::max(1.0, pivots.cwiseAbs().maxCoeff());
}

// Positive definite beyond rounding: Cholesky succeeds and the smallest pivot is not a rounding
// remnant of the largest.
bool positive_definite(const Eigen::MatrixXd& matrix) {
  if (matrix.size() == 0) return true;
  const Eigen::LDLT<Eigen::MatrixXd> factor(matrix);
  if (factor.info() != Eigen::Success || !factor.isPositive()) return false;
  const Eigen::VectorXd pivots = factor.vectorD();
  return pivots.minCoeff() > 1e-12 * pivots.cwiseAbs().maxCoeff();
}

}  // namespace

const ModalNode* ModalBody::node(const std::string& name) const {
  for (const ModalNode& entry : nodes)
    if (entry.name == name) return &entry;
  return nullptr;
}

// The retained kinetic energy of a flexible body, T = 1/2 nu^T M nu with nu = [V; etadot]
// (part I section 8, M_fl(k), with the rigid part first): the Gram matrix of the rigid and modal
// velocity fields at eta = 0.
Eigen::MatrixXd flexible_body_mass_matrix(const ModalBody& body, double mass,
                                          const Eigen::Vector3d& center_of_mass,
                                          const Eigen::Matrix3d& inertia) {
  const int modes = body.modes();
  if (body.modal_mass.cols() != modes || body.coupling.rows() != 6 || body.coupling.cols() != modes)
    throw std::invalid_argument("flexible_body_mass_matrix: the modal mass is " +
                                shape(body.modal_mass) + " and the coupling " +
                                shape(body.coupling));
  Eigen::MatrixXd matrix(6 + modes, 6 + modes);
  matrix.topLeftCorner<6, 6>() = spatial_inertia(mass, center_of_mass, inertia);
  matrix.topRightCorner(6, modes) = body.coupling;
  matrix.bottomLeftCorner(modes, 6) = body.coupling.transpose();
  matrix.bottomRightCorner(modes, modes) = body.modal_mass;
  return matrix;
}

std::string modal_mass_problem(const Eigen::MatrixXd& modal_mass) {
  if (modal_mass.rows() == 0) return "no modes (a flexible body needs at least one)";
  if (modal_mass.cols() != modal_mass.rows())
    return "the modal mass is " + shape(modal_mass) + ", not square";
  if (!modal_mass.allFinite()) return "the modal mass has an entry that is not finite";
  if (!symmetric(modal_mass)) return "the modal mass is not symmetric";
  if (!positive_definite(modal_mass)) return "the modal mass is not positive definite";
  return "";
}

std::string modal_body_problem(const ModalBody& body, ModalProblemPlace* place) {
  const auto in = [place](ModalProblemPlace::Field field, int node, std::string problem) {
    if (place) *place = {field, node};
    return problem;
  };
  const std::string mass_problem = modal_mass_problem(body.modal_mass);
  if (!mass_problem.empty()) return in(ModalProblemPlace::kModalMass, -1, mass_problem);
  const Eigen::Index modes = body.modal_mass.rows();
  const auto square = [&](const Eigen::MatrixXd& matrix, const char* what) -> std::string {
    if (matrix.rows() != modes || matrix.cols() != modes)
      return std::string("the ") + what + " is " + shape(matrix) + ", not " +
             std::to_string(modes) + " x " + std::to_string(modes) + " (one row per mode)";
    if (!matrix.allFinite()) return std::string("the ") + what + " has an entry that is not finite";
    if (!symmetric(matrix)) return std::string("the ") + what + " is not symmetric";
    return "";
  };
  std::string problem = square(body.modal_stiffness, "modal stiffness");
  if (problem.empty() && !positive_semidefinite(body.modal_stiffness))
    problem = "the modal stiffness has a negative eigenvalue (negative stiffness)";
  if (!problem.empty()) return in(ModalProblemPlace::kModalStiffness, -1, problem);
  problem = square(body.modal_damping, "modal damping");
  if (problem.empty() && !positive_semidefinite(body.modal_damping))
    problem = "the modal damping has a negative eigenvalue (negative damping)";
  if (!problem.empty()) return in(ModalProblemPlace::kModalDamping, -1, problem);
  const std::string rows6 = "6 x " + std::to_string(modes);
  if (body.coupling.rows() != 6 || body.coupling.cols() != modes)
    return in(ModalProblemPlace::kCoupling, -1,
              "the coupling is " + shape(body.coupling) + ", not " + rows6 +
                  " ([angular; linear] rows, one column per mode)");
  if (!body.coupling.allFinite())
    return in(ModalProblemPlace::kCoupling, -1, "the coupling has an entry that is not finite");
  for (std::size_t index = 0; index < body.nodes.size(); ++index) {
    const ModalNode& node = body.nodes[index];
    const int at = static_cast<int>(index);
    if (node.influence.rows() != 6 || node.influence.cols() != modes)
      return in(ModalProblemPlace::kNode, at,
                "node '" + node.name + "' is " + shape(node.influence) + ", not " + rows6 +
                    " ([rotation; translation] rows, one column per mode)");
    if (!node.influence.allFinite())
      return in(ModalProblemPlace::kNode, at,
                "node '" + node.name + "' has an entry that is not finite");
  }
  return in(ModalProblemPlace::kNone, -1, "");
}

std::string flexible_body_mass_problem(const ModalBody& body, double mass,
                                       const Eigen::Vector3d& center_of_mass,
                                       const Eigen::Matrix3d& inertia) {
  const std::string own = modal_body_problem(body);
  if (!own.empty()) return own;
  if (!positive_definite(flexible_body_mass_matrix(body, mass, center_of_mass, inertia)))
    return "the body's mass matrix [[rigid inertia, coupling], [coupling^T, modal mass]] is not "
           "positive definite (the coupling does not fit the mass, centre of mass and inertia)";
  return "";
}

}  // namespace skograph
