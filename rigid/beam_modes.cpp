#include "skograph/rigid/beam_modes.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace skograph {

namespace {

constexpr int kMaxModes = 20;

bool positive_finite(double value) {
  return std::isfinite(value) && value > 0.0;
}

}  // namespace

// cos l cosh l = -1 written as cos l + sech l = 0, whose n-th root lies just past (2n - 1) pi / 2
// (sech l is below 1e-6 from the third root on), found by Newton's method from there: the product
// form's slope grows like cosh l and throws the iteration off for the high roots.
std::vector<double> clamped_free_roots(int count) {
  std::vector<double> roots;
  for (int n = 1; n <= count; ++n) {
    double root = (2 * n - 1) * std::numbers::pi / 2.0;
    for (int iteration = 0; iteration < 60; ++iteration) {
      const double sech = 1.0 / std::cosh(root);
      const double step = (std::cos(root) + sech) / (-std::sin(root) - std::tanh(root) * sech);
      root -= step;
      if (std::abs(step) <= 1e-16 * root) break;
    }
    roots.push_back(root);
  }
  return roots;
}

double clamped_free_sigma(double root) {
  const double sech = 1.0 / std::cosh(root);
  return (1.0 + std::cos(root) * sech) / (std::tanh(root) + std::sin(root) * sech);
}

// 1 - sigma = (sinh l + sin l - cosh l - cos l) / (sinh l + sin l), with sinh l - cosh l = -e^-l.
double clamped_free_one_minus_sigma(double root) {
  return (std::sin(root) - std::cos(root) - std::exp(-root)) / (std::sinh(root) + std::sin(root));
}

// phi(x) = cosh z - cos z - sigma (sinh z - sin z), z = l x / L, with cosh z - sigma sinh z =
// ((1 - sigma) e^z + (1 + sigma) e^-z) / 2, whose two terms stay of order one (1 - sigma is of
// order e^-l); L phi'(x) = l (sinh z - sigma cosh z + sin z + sigma cos z) the same way.
BeamModeShape clamped_free_shape(double root, double xi) {
  const double z = root * xi;
  const double sigma = clamped_free_sigma(root);
  const double rising = clamped_free_one_minus_sigma(root) * std::exp(z) / 2.0;
  const double falling = (1.0 + sigma) * std::exp(-z) / 2.0;
  BeamModeShape shape;
  shape.value = rising + falling - std::cos(z) + sigma * std::sin(z);
  shape.slope = root * (rising - falling + std::sin(z) + sigma * std::cos(z));
  return shape;
}

// Mode n of a bending plane, psi = phi / sqrt(m) (so that the modal mass is 1), deflects the beam
// along d and turns its sections about a = e x d (e the beam's axis); with m = rho A L:
//   omega_n = l_n^2 sqrt(EI / (rho A L^4)),
//   integral of rho A psi dx = sqrt(m) 2 sigma_n / l_n       (from phi'''' = beta^4 phi and the
//   integral of rho A x psi dx = sqrt(m) L 2 / l_n^2           clamped and free end conditions),
// so its coupling column is [a sqrt(m) L 2 / l^2; d sqrt(m) 2 sigma / l] (r x d psi integrated, r =
// x e) and its influence at x is [a psi'(x); d psi(x)].
BeamModes clamped_free_beam(const BeamSpec& beam, const std::vector<double>& stations) {
  if (!positive_finite(beam.length))
    throw std::invalid_argument("the beam's length must be positive");
  // An infinite stiffness is a plane the beam does not bend in (`EI_y: rigid`): no modes there.
  if (!(beam.stiffness_y > 0.0) || !(beam.stiffness_z > 0.0))
    throw std::invalid_argument("the beam's bending stiffnesses EI_y and EI_z must be positive");
  if (!positive_finite(beam.mass_per_length))
    throw std::invalid_argument("the beam's mass per length rho_A must be positive");
  if (!std::isfinite(beam.radius) || beam.radius < 0.0)
    throw std::invalid_argument("the beam's radius must not be negative");
  if (beam.modes < 0 || beam.modes > kMaxModes)
    throw std::invalid_argument("the beam's modes must be 0 to " + std::to_string(kMaxModes) +
                                " per plane");
  if (beam.axis < 0 || beam.axis > 2)
    throw std::invalid_argument("the beam's axis must be x, y or z");
  for (const double station : stations)
    if (!std::isfinite(station) || station < 0.0 || station > beam.length)
      throw std::invalid_argument("a point at " + std::to_string(station) +
                                  " along the beam is off it (0 to its length)");

  const double length = beam.length, mass = beam.mass_per_length * length;
  const Eigen::Vector3d axis = Eigen::Vector3d::Unit(beam.axis);
  const Eigen::Vector3d first = Eigen::Vector3d::Unit((beam.axis + 1) % 3);
  const Eigen::Vector3d second = Eigen::Vector3d::Unit((beam.axis + 2) % 3);
  BeamModes out;
  out.mass = mass;
  out.center_of_mass = axis * (length / 2.0);
  const double transverse = mass * length * length / 12.0;
  out.inertia_about_center = transverse * (Eigen::Matrix3d::Identity() - axis * axis.transpose()) +
                             (mass * beam.radius * beam.radius / 2.0) * axis * axis.transpose();

  const bool elastic[2] = {std::isfinite(beam.stiffness_y), std::isfinite(beam.stiffness_z)};
  const int count = (static_cast<int>(elastic[0]) + static_cast<int>(elastic[1])) * beam.modes;
  out.frequencies.resize(count);
  out.modal_mass = Eigen::MatrixXd::Identity(count, count);
  out.modal_stiffness = Eigen::MatrixXd::Zero(count, count);
  out.coupling.resize(6, count);
  out.influence.assign(stations.size(), Eigen::MatrixXd(6, count));
  const std::vector<double> roots = clamped_free_roots(beam.modes);
  const double scale = std::sqrt(mass);
  // EI_y bends about the first section axis: deflection along the second, sections turning about
  // axis x second = -first; EI_z bends about the second: deflection along the first, turning
  // about axis x first = second.
  const struct {
    double stiffness;
    Eigen::Vector3d deflection, turn;
  } planes[2] = {{beam.stiffness_y, second, -first}, {beam.stiffness_z, first, second}};
  double rates[2];  // omega_n / l_n^2 per plane
  for (int plane = 0; plane < 2; ++plane)
    rates[plane] = std::sqrt(planes[plane].stiffness /
                             (beam.mass_per_length * length * length * length * length));
  std::vector<BeamModeShape> shapes(stations.size());
  for (int n = 0; n < beam.modes; ++n) {
    const double root = roots[static_cast<std::size_t>(n)];
    const double sigma = clamped_free_sigma(root);
    // The two planes share the mode's shape: evaluated once per station.
    for (std::size_t s = 0; s < stations.size(); ++s)
      shapes[s] = clamped_free_shape(root, stations[s] / length);
    for (int plane = 0, slot = 0; plane < 2; ++plane) {
      if (!elastic[plane]) continue;
      const int column = slot++ * beam.modes + n;
      const double omega = root * root * rates[plane];
      out.frequencies[column] = omega;
      out.modal_stiffness(column, column) = omega * omega;
      out.coupling.col(column) << planes[plane].turn * (scale * length * 2.0 / (root * root)),
          planes[plane].deflection * (scale * 2.0 * sigma / root);
      for (std::size_t s = 0; s < stations.size(); ++s)
        out.influence[s].col(column) << planes[plane].turn * (shapes[s].slope / (length * scale)),
            planes[plane].deflection * (shapes[s].value / scale);
    }
  }
  return out;
}

}  // namespace skograph
