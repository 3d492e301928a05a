// A flexible body's modal data (docs/flexible-bodies.md): small deformation of the link about its
// floating frame, described by nmd modal coordinates eta. The link's mass, centre of mass and
// inertia stay its rigid invariants; this adds the modal mass, stiffness and damping, the
// rigid-flexible coupling and, at every node where a joint or a loop attaches, the node's modal
// influence matrix (part I, section 8). Plain data, as io/ reads it.
#pragma once

#include <Eigen/Core>
#include <string>
#include <vector>

namespace skograph {

// A node of a flexible body: the attachment of a joint (the link's own hinge or a child's) or of a
// loop's frame, named after that joint or loop.
struct ModalNode {
  std::string name;
  // 6 x nmd: [rotation; translation] of the node per unit modal coordinate, in link axes. The
  // node's pose is exp([Pi_r eta]) R_node and p_node + Pi_t eta.
  Eigen::MatrixXd influence;
  int source_line = 0;  // 1-based line of the entry in its file, 0 when unknown
};

struct ModalBody {
  Eigen::MatrixXd modal_mass;       // nmd x nmd, symmetric positive definite
  Eigen::MatrixXd modal_stiffness;  // nmd x nmd, symmetric positive semidefinite
  Eigen::MatrixXd modal_damping;    // nmd x nmd, symmetric positive semidefinite
  // 6 x nmd: [integral of rho r x phi; integral of rho phi] over the body, about the link origin
  // in link axes: the off-diagonal block of the body's (6 + nmd)-square mass matrix.
  Eigen::MatrixXd coupling;
  std::vector<ModalNode> nodes;
  std::string source_file;  // the file that gave the data (a modal data file or the model)
  int source_line = 0;      // 1-based line of the data's start there

  int modes() const { return static_cast<int>(modal_mass.rows()); }
  // The node named `name`, or nullptr (the link's own hinge may have none: its modes are clamped
  // there).
  const ModalNode* node(const std::string& name) const;
};

// The body's (6 + nmd)-square mass matrix about the link origin, [rigid 6; modal nmd]:
// [[spatial inertia, coupling], [coupling^T, modal mass]] with the link's rigid invariants (mass,
// centre of mass and inertia about it, link axes). Throws std::invalid_argument when the modal
// mass is not square or the coupling not 6 x nmd.
Eigen::MatrixXd flexible_body_mass_matrix(const ModalBody& body, double mass,
                                          const Eigen::Vector3d& center_of_mass,
                                          const Eigen::Matrix3d& inertia);

// What is wrong with a modal mass matrix, or "": no modes, not square, an entry not finite, not
// symmetric, not positive definite.
std::string modal_mass_problem(const Eigen::MatrixXd& modal_mass);

// Which of a body's fields a problem lies in, so that a reader can name that field's line.
struct ModalProblemPlace {
  enum Field { kNone, kModalMass, kModalStiffness, kModalDamping, kCoupling, kNode };
  Field field = kNone;
  int node = -1;  // index into ModalBody::nodes when field is kNode
};

// The first thing wrong with the body's own numbers, or "" when nothing is: matrix sizes, entries
// that are not finite, a modal mass that is not symmetric or not positive definite, a stiffness or
// damping that is not symmetric or has a negative eigenvalue. `place`, when given, receives the
// field the problem lies in.
std::string modal_body_problem(const ModalBody& body, ModalProblemPlace* place = nullptr);

// What is wrong with the body on its link, or "": its own numbers' problem, or the (6 + nmd)-square
// mass matrix not positive definite (the rigid invariants and the coupling do not describe one mass
// distribution).
std::string flexible_body_mass_problem(const ModalBody& body, double mass,
                                       const Eigen::Vector3d& center_of_mass,
                                       const Eigen::Matrix3d& inertia);

}  // namespace skograph
