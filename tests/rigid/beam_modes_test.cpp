// The clamped-free beam's modes against their defining equations, textbook roots, quadrature of
// the shapes computed from the naive formula in long double, and derivatives by Richardson
// extrapolation.
#include "skograph/rigid/beam_modes.hpp"

#include "skograph/rigid/modal_body.hpp"

#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <cmath>
#include <cstdlib>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "support/richardson.hpp"

namespace skograph {
namespace {

// Gauss-Legendre nodes and weights on [-1, 1] by Newton's method on P_n (independent of the
// code under test), for composite quadrature over [0, 1].
struct Quadrature {
  std::vector<double> points, weights;
};

Quadrature composite_gauss(int panels, int order) {
  std::vector<double> nodes, node_weights;
  for (int i = 1; i <= order; ++i) {
    long double x = std::cos(std::numbers::pi * (i - 0.25) / (order + 0.5));
    long double derivative = 0;
    for (int iteration = 0; iteration < 100; ++iteration) {
      long double p0 = 1, p1 = x;
      for (int k = 2; k <= order; ++k) {
        const long double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
        p0 = p1;
        p1 = p2;
      }
      derivative = order * (x * p1 - p0) / (x * x - 1);
      const long double step = p1 / derivative;
      x -= step;
      if (std::fabs(static_cast<double>(step)) < 1e-19) break;
    }
    nodes.push_back(static_cast<double>(x));
    node_weights.push_back(static_cast<double>(2 / ((1 - x * x) * derivative * derivative)));
  }
  Quadrature out;
  for (int panel = 0; panel < panels; ++panel)
    for (int i = 0; i < order; ++i) {
      out.points.push_back((panel + (nodes[i] + 1) / 2) / panels);
      out.weights.push_back(node_weights[i] / 2 / panels);
    }
  return out;
}

// The textbook form, in long double: good for the first modes only (it subtracts cosh-sized
// numbers).
long double naive_shape(long double root, long double xi) {
  const long double z = root * xi;
  const long double sigma = (std::cosh(root) + std::cos(root)) / (std::sinh(root) + std::sin(root));
  return std::cosh(z) - std::cos(z) - sigma * (std::sinh(z) - std::sin(z));
}

TEST(BeamModes, RootsSolveTheFrequencyEquationAndMatchTheTextbook) {
  const std::vector<double> roots = clamped_free_roots(20);
  ASSERT_EQ(roots.size(), 20u);
  // The textbook clamped-free values (Blevins, Formulas for Natural Frequency and Mode Shape).
  const double textbook[] = {1.87510407, 4.69409113, 7.85475744, 10.99554073, 14.13716839};
  for (int n = 0; n < 5; ++n) EXPECT_NEAR(roots[n], textbook[n], 5e-9);
  for (int n = 0; n < 20; ++n) {
    const long double l = roots[n];
    // cos l + sech l = 0 to the rounding of l (the slope is about 1), and the n-th root is the one
    // near (2n - 1) pi / 2.
    EXPECT_LT(std::fabs(static_cast<double>(std::cos(l) + 1 / std::cosh(l))),
              4e-16 * roots[n] + 1e-15)
        << n;
    EXPECT_NEAR(roots[n], (2 * n + 1) * std::numbers::pi / 2, 0.31) << n;
    if (n > 0) {
      EXPECT_GT(roots[n], roots[n - 1]);
    }
  }
}

TEST(BeamModes, ShapesAreOrthonormalAndClampedAndFreeWithTheClosedFormIntegrals) {
  const std::vector<double> roots = clamped_free_roots(20);
  const Quadrature quadrature = composite_gauss(16, 24);
  std::vector<std::vector<double>> values(20);
  for (int n = 0; n < 20; ++n)
    for (const double xi : quadrature.points)
      values[n].push_back(clamped_free_shape(roots[n], xi).value);
  for (int n = 0; n < 20; ++n) {
    for (int m = 0; m <= n; ++m) {
      double inner = 0.0;
      for (std::size_t i = 0; i < quadrature.points.size(); ++i)
        inner += quadrature.weights[i] * values[n][i] * values[m][i];
      EXPECT_NEAR(inner, n == m ? 1.0 : 0.0, 1e-12) << n << " " << m;
    }
    double integral = 0.0, moment = 0.0;
    for (std::size_t i = 0; i < quadrature.points.size(); ++i) {
      integral += quadrature.weights[i] * values[n][i];
      moment += quadrature.weights[i] * quadrature.points[i] * values[n][i];
    }
    EXPECT_NEAR(integral, 2.0 * clamped_free_sigma(roots[n]) / roots[n], 1e-12) << n;
    EXPECT_NEAR(moment, 2.0 / (roots[n] * roots[n]), 1e-12) << n;
    const BeamModeShape hinge = clamped_free_shape(roots[n], 0.0);
    EXPECT_NEAR(hinge.value, 0.0, 1e-13) << n;
    EXPECT_NEAR(hinge.slope, 0.0, 1e-12 * roots[n]) << n;
    EXPECT_NEAR(clamped_free_shape(roots[n], 1.0).value, n % 2 == 0 ? 2.0 : -2.0, 1e-12) << n;
    EXPECT_NEAR(clamped_free_one_minus_sigma(roots[n]), 1.0 - clamped_free_sigma(roots[n]), 1e-15);
  }
  // The stable form against the naive one where the naive one still has its digits.
  for (int n = 0; n < 3; ++n)
    for (const double xi : {0.1, 0.37, 0.5, 0.81, 1.0})
      EXPECT_NEAR(clamped_free_shape(roots[n], xi).value,
                  static_cast<double>(naive_shape(roots[n], xi)), 1e-13);
}

// Richardson's extrapolation of central differences of the value gives the slope.
TEST(BeamModes, SlopeIsTheDerivativeOfTheValue) {
  const std::vector<double> roots = clamped_free_roots(8);
  for (int n = 0; n < 8; ++n)
    for (const double xi : {0.05, 0.3, 0.62, 0.9}) {
      const auto value_at = [&](int, double step) {
        return Eigen::VectorXd::Constant(1, clamped_free_shape(roots[n], xi + step).value);
      };
      // A step of a hundredth of the mode's wavelength over 2 pi.
      const double extrapolated =
          testing_support::richardson_columns(1, value_at, 0.01 / roots[n]).fine(0, 0);
      EXPECT_NEAR(clamped_free_shape(roots[n], xi).slope, extrapolated, 1e-8 * roots[n])
          << n << " " << xi;
    }
}

TEST(BeamModes, BeamHasItsInvariantsFrequenciesCouplingAndInfluences) {
  BeamSpec beam;
  beam.length = 1.7;
  beam.stiffness_y = 230.0;
  beam.stiffness_z = 410.0;
  beam.mass_per_length = 2.3;
  beam.modes = 4;
  beam.radius = 0.03;
  for (int axis = 0; axis < 3; ++axis) {
    beam.axis = axis;
    const Quadrature quadrature = composite_gauss(8, 24);
    std::vector<double> stations;
    for (const double xi : quadrature.points) stations.push_back(xi * beam.length);
    stations.push_back(beam.length);
    const BeamModes modes = clamped_free_beam(beam, stations);
    const double mass = 2.3 * 1.7;
    const Eigen::Vector3d e = Eigen::Vector3d::Unit(axis);
    EXPECT_DOUBLE_EQ(modes.mass, mass);
    EXPECT_TRUE(modes.center_of_mass.isApprox(e * 0.85));
    for (int i = 0; i < 3; ++i)
      EXPECT_NEAR(modes.inertia_about_center(i, i),
                  i == axis ? mass * 0.03 * 0.03 / 2 : mass * 1.7 * 1.7 / 12, 1e-14);
    ASSERT_EQ(modes.frequencies.size(), 8);
    // Blevins: omega_1 = 3.51601527 sqrt(EI / (m L^3)) with m = rho A L.
    EXPECT_NEAR(modes.frequencies[0], 3.51601527 * std::sqrt(230.0 / (mass * std::pow(1.7, 3))),
                1e-7);
    EXPECT_NEAR(modes.frequencies[4], 3.51601527 * std::sqrt(410.0 / (mass * std::pow(1.7, 3))),
                1e-7);
    EXPECT_TRUE(modes.modal_stiffness.diagonal().isApprox(
        modes.frequencies.array().square().matrix(), 1e-15));
    EXPECT_TRUE(modes.modal_mass.isIdentity());
    // The modal mass and the coupling by quadrature of the translation field rho A u(x), and of
    // r x u: the influence matrices integrated along the beam.
    Eigen::MatrixXd modal_mass = Eigen::MatrixXd::Zero(8, 8),
                    coupling = Eigen::MatrixXd::Zero(6, 8);
    for (std::size_t i = 0; i < quadrature.points.size(); ++i) {
      const double weight = quadrature.weights[i] * beam.length * beam.mass_per_length;
      const Eigen::MatrixXd translation = modes.influence[i].bottomRows(3);
      modal_mass += weight * translation.transpose() * translation;
      coupling.bottomRows(3) += weight * translation;
      const Eigen::Vector3d r = e * stations[i];
      for (int c = 0; c < 8; ++c)
        coupling.col(c).head<3>() += weight * r.cross(Eigen::Vector3d(translation.col(c)));
    }
    EXPECT_TRUE(modal_mass.isApprox(Eigen::MatrixXd::Identity(8, 8), 1e-11)) << modal_mass;
    EXPECT_LT((coupling - modes.coupling).norm(), 1e-11 * modes.coupling.norm());
    // Each mode bends the beam in one plane: the y-stiffness modes along the second section axis,
    // turning the sections about the first (rotation = slope of the deflection).
    const Eigen::Vector3d first = Eigen::Vector3d::Unit((axis + 1) % 3);
    const Eigen::Vector3d second = Eigen::Vector3d::Unit((axis + 2) % 3);
    const Eigen::MatrixXd& tip = modes.influence.back();
    for (int c = 0; c < 8; ++c) {
      const Eigen::Vector3d deflection = c < 4 ? second : first;
      const Eigen::Vector3d turn = e.cross(deflection);
      const Eigen::Vector3d rotation = tip.col(c).head<3>(), translation = tip.col(c).tail<3>();
      EXPECT_LT((translation - deflection * deflection.dot(translation)).norm(), 1e-15);
      EXPECT_LT((rotation - turn * turn.dot(rotation)).norm(), 1e-15);
      // phi(L) = +-2 for the modes of mass-normalized shape phi / sqrt(m).
      EXPECT_NEAR(std::abs(deflection.dot(translation)) * std::sqrt(mass), 2.0, 1e-12);
    }
  }
  EXPECT_EQ(clamped_free_beam(beam, {}).influence.size(), 0u);
}

// The (6 + nmd)-square mass matrix of a flexible body (rigid/modal_body.hpp) is the kinetic
// energy of its velocity field: for nu = [w; v; etadot], a point of the beam at r moves with
// v + w x r + Phi_t(r) etadot, and the sections turn about the axis with w (inertia m r^2 / 2).
TEST(BeamModes, TheBodysMassMatrixIsItsVelocityFieldsKineticEnergy) {
  BeamSpec beam;
  beam.length = 1.3;
  beam.stiffness_y = 75.0;
  beam.stiffness_z = 120.0;
  beam.mass_per_length = 1.9;
  beam.modes = 3;
  beam.radius = 0.04;
  beam.axis = 2;
  const Quadrature quadrature = composite_gauss(8, 24);
  std::vector<double> stations;
  for (const double xi : quadrature.points) stations.push_back(xi * beam.length);
  const BeamModes modes = clamped_free_beam(beam, stations);
  ModalBody body;
  body.modal_mass = modes.modal_mass;
  body.modal_stiffness = modes.modal_stiffness;
  body.modal_damping = Eigen::MatrixXd::Zero(6, 6);
  body.coupling = modes.coupling;
  const Eigen::MatrixXd matrix =
      flexible_body_mass_matrix(body, modes.mass, modes.center_of_mass, modes.inertia_about_center);
  ASSERT_EQ(matrix.rows(), 12);
  const Eigen::Vector3d e = Eigen::Vector3d::UnitZ();
  std::srand(7);
  for (int trial = 0; trial < 5; ++trial) {
    const Eigen::VectorXd nu = Eigen::VectorXd::Random(12);
    const Eigen::Vector3d w = nu.head<3>(), v = nu.segment<3>(3);
    double energy = 0.5 * (modes.mass * beam.radius * beam.radius / 2) * std::pow(w.dot(e), 2);
    for (std::size_t i = 0; i < quadrature.points.size(); ++i) {
      const Eigen::Vector3d velocity =
          v + w.cross(e * stations[i]) + modes.influence[i].bottomRows(3) * nu.tail(6);
      energy +=
          0.5 * quadrature.weights[i] * beam.length * beam.mass_per_length * velocity.squaredNorm();
    }
    EXPECT_NEAR(0.5 * nu.dot(matrix * nu), energy, 1e-12 * energy);
  }
  EXPECT_EQ(modal_body_problem(body), "");
  EXPECT_EQ(flexible_body_mass_problem(body, modes.mass, modes.center_of_mass,
                                       modes.inertia_about_center),
            "");
  // Twice the coupling is more than one mass distribution can carry.
  ModalBody doubled = body;
  doubled.coupling *= 2;
  EXPECT_NE(flexible_body_mass_problem(doubled, modes.mass, modes.center_of_mass,
                                       modes.inertia_about_center),
            "");
  ModalBody soft = body;
  soft.modal_stiffness(1, 1) = -1;
  EXPECT_EQ(modal_body_problem(soft),
            "the modal stiffness has a negative eigenvalue (negative stiffness)");
}

TEST(BeamModes, BadBeamsAreRefusedWithTheirReason) {
  BeamSpec good;
  good.length = 1.0;
  good.stiffness_y = good.stiffness_z = 1.0;
  good.mass_per_length = 1.0;
  good.modes = 2;
  EXPECT_NO_THROW(clamped_free_beam(good, {0.0, 1.0}));
  const auto refused = [&](BeamSpec beam, std::vector<double> stations, const char* words) {
    try {
      clamped_free_beam(beam, stations);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const std::invalid_argument& error) {
      EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
    }
  };
  BeamSpec beam = good;
  beam.length = -1.0;
  refused(beam, {}, "length");
  beam = good;
  beam.stiffness_z = std::nan("");
  refused(beam, {}, "EI_y and EI_z");
  beam = good;
  beam.mass_per_length = 0.0;
  refused(beam, {}, "rho_A");
  beam = good;
  beam.modes = 21;
  refused(beam, {}, "modes");
  beam = good;
  beam.axis = 3;
  refused(beam, {}, "axis");
  refused(good, {1.5}, "off it");
  beam = good;
  beam.radius = -0.1;
  refused(beam, {}, "radius");
}

}  // namespace
}  // namespace skograph
