// A uniform Euler-Bernoulli beam clamped at its hinge, as a flexible body's modal data: the
// clamped-free bending modes in closed form (docs/flexible-bodies.md, "The beam generator"), mass
// normalized, with the rigid invariants, the rigid-flexible coupling and the modal influence
// matrices of points along the beam.
#pragma once

#include <Eigen/Core>
#include <vector>

namespace skograph {

struct BeamSpec {
  double length = 0.0;
  double stiffness_y =
      0.0;  // EI_y: bending about the first section axis (deflection along the second)
  double stiffness_z =
      0.0;  // EI_z: bending about the second section axis (deflection along the first)
  // An infinite EI is a plane the beam does not bend in: it has no modes there.
  double mass_per_length = 0.0;  // rho A
  int modes = 0;                 // per bending plane
  int axis = 0;                  // 0, 1, 2: the beam runs from the hinge along x, y or z
  double radius = 0.0;           // for the axial moment of inertia m r^2 / 2 only
};

// The roots l_n = beta_n L of cos l cosh l = -1, n = 1 .. count, ascending.
std::vector<double> clamped_free_roots(int count);

// One clamped-free mode with root l, normalized so that the integral of its square over [0, L]
// is L: its value phi and its slope L phi' at x = xi L (0 <= xi <= 1), evaluated in a form that
// keeps its digits for the high modes (no difference of two cosh-sized numbers).
struct BeamModeShape {
  double value = 0.0;
  double slope = 0.0;  // L dphi/dx
};
BeamModeShape clamped_free_shape(double root, double xi);

// sigma_n = (cosh l + cos l) / (sinh l + sin l) and 1 - sigma_n, the latter without cancellation.
double clamped_free_sigma(double root);
double clamped_free_one_minus_sigma(double root);

struct BeamModes {
  double mass = 0.0;
  Eigen::Vector3d center_of_mass = Eigen::Vector3d::Zero();  // in the link frame (the hinge's)
  Eigen::Matrix3d inertia_about_center = Eigen::Matrix3d::Zero();
  // The modes, first the EI_y plane's `modes`, then the EI_z plane's (a plane of infinite
  // stiffness has none): angular frequencies (rad/s),
  // modal mass (identity), modal stiffness diag(omega^2).
  Eigen::VectorXd frequencies;
  Eigen::MatrixXd modal_mass, modal_stiffness;
  // 6 x modes: [integral of rho r x phi; integral of rho phi] over the beam, link axes.
  Eigen::MatrixXd coupling;
  // Per station asked for: 6 x modes, [rotation; translation] of the beam's section there per
  // unit modal coordinate, link axes.
  std::vector<Eigen::MatrixXd> influence;
};

// The beam's modal data; `stations` are distances from the hinge along the axis (0 .. length) of
// the points whose influence matrices are wanted (the child joints, frames and loop frames on it).
// The hinge itself is clamped: its influence is zero. Throws std::invalid_argument on a length,
// stiffness or mass per length that is not positive and finite, modes outside 0 .. 20, an axis
// outside 0 .. 2 or a station off the beam.
BeamModes clamped_free_beam(const BeamSpec& beam, const std::vector<double>& stations);

}  // namespace skograph
