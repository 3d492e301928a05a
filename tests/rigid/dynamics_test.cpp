// Rigid-body dynamics against first principles on random mechanisms (several seeds): mass matrix
// from inverse dynamics, forward dynamics inverting inverse dynamics, accelerations as derivatives
// of velocities, the Lagrangian from finite differences of the kinetic energy, power balance
// over RK4 simulations, gravity as base acceleration versus body forces.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <random>

#include "skograph/rigid/rigid_body_model.hpp"
#include "support/rigid_support.hpp"

namespace skograph {
namespace {

using testing_support::random_mechanism;
using testing_support::RandomMechanismOptions;
using testing_support::rigid_random_state;

const Eigen::Vector3d kSlantedGravity(0.3, -0.5, -9.81);

double scale_of(const Eigen::MatrixXd& m) {
  return 1.0 + m.cwiseAbs().maxCoeff();
}

class RandomMechanisms : public ::testing::TestWithParam<int> {
 protected:
  RandomMechanismOptions options() const {
    RandomMechanismOptions o;
    o.links = 12 + 7 * (GetParam() % 3);
    o.floating_base = GetParam() % 2 == 0;
    o.extra_bases = GetParam() % 3 == 1 ? 2 : 0;
    o.coordinate_axes = GetParam() >= 6;
    return o;
  }
};

TEST_P(RandomMechanisms, MassMatrixIsColumnsOfInverseDynamics) {
  std::mt19937 rng(100 + GetParam());
  const RigidBodyModel model(random_mechanism(options(), rng));
  if (options().coordinate_axes) {  // the turn kernels are on the path
    int turns = 0;
    for (int k = 0; k < model.node_count(); ++k) turns += model.turn_axis(k) >= 0 ? 1 : 0;
    EXPECT_GT(turns, 1);
  }
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd tau0 =
      inverse_dynamics(model, data, q, qd, Eigen::VectorXd::Zero(n), kSlantedGravity);
  Eigen::MatrixXd columns(n, n);
  for (int i = 0; i < n; ++i)
    columns.col(i) =
        inverse_dynamics(model, data, q, qd, Eigen::VectorXd::Unit(n, i), kSlantedGravity) - tau0;
  const Eigen::MatrixXd mass = mass_matrix(model, data, q);
  EXPECT_LT((mass - columns).cwiseAbs().maxCoeff(), 1e-10 * scale_of(mass));
  EXPECT_LT((mass - mass.transpose()).cwiseAbs().maxCoeff(), 1e-10 * scale_of(mass));
  EXPECT_GT(Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(mass).eigenvalues().minCoeff(), 0.0);
  // The fixed-size path equals the generic operators' Algorithm 4.2.
  const Eigen::MatrixXd generic = mass_matrix_through_operators(model, data, q);
  EXPECT_LT((generic - mass).cwiseAbs().maxCoeff(), 1e-10 * scale_of(mass));
  // Kinetic energy summed over the links = 1/2 qd* M qd.
  update_kinematics(model, q, qd, data);
  EXPECT_NEAR(kinetic_energy(model, data), 0.5 * qd.dot(mass * qd), 1e-10 * scale_of(mass));
  // Bias: tau = M qdd + C for any qdd, C = inverse dynamics at qdd = 0.
  const Eigen::VectorXd qdd = rigid_random_state(n, rng);
  const Eigen::VectorXd bias = bias_forces(model, data, q, qd, kSlantedGravity);
  const Eigen::VectorXd tau = inverse_dynamics(model, data, q, qd, qdd, kSlantedGravity);
  EXPECT_LT((tau - mass * qdd - bias).cwiseAbs().maxCoeff(), 1e-10 * scale_of(tau));
}

TEST_P(RandomMechanisms, ForwardDynamicsInvertsInverseDynamics) {
  std::mt19937 rng(200 + GetParam());
  const RigidBodyModel model(random_mechanism(options(), rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd qdd = rigid_random_state(n, rng);
  const Eigen::VectorXd tau = inverse_dynamics(model, data, q, qd, qdd, kSlantedGravity);
  const Eigen::VectorXd solved = forward_dynamics(model, data, q, qd, tau, kSlantedGravity);
  EXPECT_LT((solved - qdd).cwiseAbs().maxCoeff(), 1e-8);
  // And against the dense solve M qdd = tau - C.
  const Eigen::VectorXd bias = bias_forces(model, data, q, qd, kSlantedGravity);
  const Eigen::MatrixXd mass = mass_matrix(model, data, q);
  EXPECT_LT((mass.ldlt().solve(tau - bias) - solved).cwiseAbs().maxCoeff(), 1e-8);
  // The fixed-size path and the generic operators' Algorithm 6.1 agree.
  const Eigen::VectorXd generic =
      forward_dynamics_through_operators(model, data, q, qd, tau, kSlantedGravity);
  EXPECT_LT((generic - qdd).cwiseAbs().maxCoeff(), 1e-8);
}

// The node accelerations of inverse dynamics, alpha = A*(H* qdd + a), are the time derivatives of
// the body-frame velocities V(q(t), qd(t)) along q' = configuration rate, qd' = qdd (central
// differences): this checks phi, H*, the Coriolis terms a(k) and the spherical/floating
// coordinates at once.
TEST_P(RandomMechanisms, AccelerationsAreDerivativesOfVelocities) {
  std::mt19937 rng(300 + GetParam());
  const RigidBodyModel model(random_mechanism(options(), rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd qdd = rigid_random_state(n, rng);
  Eigen::VectorXd rate(n);
  configuration_rate(model, q, qd, rate);
  const double h = 1e-6;
  const Eigen::VectorXd plus =
      testing_support::node_velocities(model, data, q + h * rate, qd + h * qdd);
  const Eigen::VectorXd minus =
      testing_support::node_velocities(model, data, q - h * rate, qd - h * qdd);
  const Eigen::VectorXd expected = (plus - minus) / (2 * h);
  // The fast Newton-Euler pass and the generic operators' (operators/inverse_dynamics.hpp) both.
  const Eigen::VectorXd tau = inverse_dynamics(model, data, q, qd, qdd, Eigen::Vector3d::Zero());
  EXPECT_LT((data.acceleration - expected).cwiseAbs().maxCoeff(), 1e-6);
  const Eigen::VectorXd velocity = data.velocity;
  EXPECT_LT(
      (inverse_dynamics_through_operators(model, data, q, qd, qdd, Eigen::Vector3d::Zero()) - tau)
          .cwiseAbs()
          .maxCoeff(),
      1e-10 * std::max(1.0, tau.cwiseAbs().maxCoeff()));
  EXPECT_LT((data.inverse->acceleration - expected).cwiseAbs().maxCoeff(), 1e-6);
  // The operators' velocities equal the rigid kinematics'.
  EXPECT_LT((data.inverse->velocity - velocity).cwiseAbs().maxCoeff(), 1e-12);
}

// Gravity g as the base acceleration -g equals the forces m g applied at the centers of mass.
TEST_P(RandomMechanisms, GravityAsBaseAccelerationEqualsBodyForces) {
  std::mt19937 rng(400 + GetParam());
  const RigidBodyModel model(random_mechanism(options(), rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const Eigen::VectorXd qdd = rigid_random_state(n, rng);
  const Eigen::VectorXd with_base_acceleration =
      inverse_dynamics(model, data, q, qd, qdd, kSlantedGravity);
  update_positions(model, q, data);
  Eigen::VectorXd forces(6 * model.link_count());
  for (int link = 0; link < model.link_count(); ++link) {
    const Link& body = model.mechanism().links[link];
    const Eigen::Matrix3d rotation = data.link_pose[model.node_of_link(link)].linear();
    const Eigen::Vector3d weight = body.mass * (rotation.transpose() * kSlantedGravity);
    forces.segment<3>(6 * link) = body.center_of_mass.cross(weight);
    forces.segment<3>(6 * link + 3) = weight;
  }
  const Eigen::VectorXd with_forces =
      inverse_dynamics(model, data, q, qd, qdd, Eigen::Vector3d::Zero(), forces);
  EXPECT_LT((with_base_acceleration - with_forces).cwiseAbs().maxCoeff(),
            1e-10 * scale_of(with_forces));
}

// RK4 of (q, qd, work): q' = configuration rate, qd' = forward dynamics, work' = tau . qd. Total
// energy T + U changes by the work of the joint torques (zero when torque-free).
void check_power_balance(const RigidBodyModel& model, RigidBodyData& data, Eigen::VectorXd q,
                         Eigen::VectorXd qd, const Eigen::VectorXd& tau, double tolerance) {
  const int n = model.dof_count();
  const double dt = 5e-4;
  const int steps = 400;
  auto derivative = [&](const Eigen::VectorXd& state) {
    Eigen::VectorXd d(2 * n + 1);
    const Eigen::VectorXd qs = state.head(n), qds = state.segment(n, n);
    configuration_rate(model, qs, qds, d.head(n));
    d.segment(n, n) = forward_dynamics(model, data, qs, qds, tau, kSlantedGravity);
    d(2 * n) = tau.dot(qds);
    return d;
  };
  Eigen::VectorXd state(2 * n + 1);
  state << q, qd, 0.0;
  const double initial = testing_support::total_energy(model, data, q, qd, kSlantedGravity);
  for (int step = 0; step < steps; ++step) {
    const Eigen::VectorXd k1 = derivative(state);
    const Eigen::VectorXd k2 = derivative(state + 0.5 * dt * k1);
    const Eigen::VectorXd k3 = derivative(state + 0.5 * dt * k2);
    const Eigen::VectorXd k4 = derivative(state + dt * k3);
    state += dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  const double final_energy = testing_support::total_energy(model, data, state.head(n),
                                                            state.segment(n, n), kSlantedGravity);
  const double work = state(2 * n);
  EXPECT_NEAR(final_energy - initial, work, tolerance * (1.0 + std::abs(initial) + std::abs(work)));
  // The motion is not trivial: the kinetic and potential energies changed noticeably.
  EXPECT_GT((state.segment(n, n) - qd).norm(), 1e-2);
}

TEST_P(RandomMechanisms, TorqueFreeMotionUnderGravityConservesEnergy) {
  std::mt19937 rng(500 + GetParam());
  RandomMechanismOptions o = options();
  o.links = 8;
  const RigidBodyModel model(random_mechanism(o, rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  check_power_balance(model, data, rigid_random_state(n, rng), rigid_random_state(n, rng),
                      Eigen::VectorXd::Zero(n), 1e-7);
}

TEST_P(RandomMechanisms, EnergyChangesByTheWorkOfTheTorques) {
  std::mt19937 rng(600 + GetParam());
  RandomMechanismOptions o = options();
  o.links = 8;
  const RigidBodyModel model(random_mechanism(o, rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  check_power_balance(model, data, rigid_random_state(n, rng), rigid_random_state(n, rng),
                      rigid_random_state(n, rng), 1e-7);
}

// Lagrange's equations d/dt dT/dqd - dT/dq = C (without gravity), T = 1/2 qd* M(q) qd, by central
// differences; only coordinates with qd = dq/dt (1-dof and planar joints).
TEST_P(RandomMechanisms, CoriolisForcesFollowFromTheLagrangian) {
  std::mt19937 rng(700 + GetParam());
  RandomMechanismOptions o = options();
  o.floating_base = false;
  o.rotation_vectors = false;
  const RigidBodyModel model(random_mechanism(o, rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng), qd = rigid_random_state(n, rng);
  const double h = 1e-5;
  auto kinetic = [&](const Eigen::VectorXd& qs) {
    return 0.5 * qd.dot(mass_matrix(model, data, qs) * qd);
  };
  // qdd = 0 along q(t) = q + t qd: d/dt (M qd) = (M(q + h qd) - M(q - h qd)) qd / 2h.
  const Eigen::MatrixXd mass_plus = mass_matrix(model, data, q + h * qd);
  const Eigen::MatrixXd mass_minus = mass_matrix(model, data, q - h * qd);
  const Eigen::VectorXd momentum_rate = (mass_plus - mass_minus) * qd / (2 * h);
  Eigen::VectorXd gradient(n);
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd step = h * Eigen::VectorXd::Unit(n, i);
    gradient(i) = (kinetic(q + step) - kinetic(q - step)) / (2 * h);
  }
  const Eigen::VectorXd coriolis = bias_forces(model, data, q, qd, Eigen::Vector3d::Zero());
  EXPECT_LT((momentum_rate - gradient - coriolis).cwiseAbs().maxCoeff(),
            1e-5 * (1.0 + coriolis.cwiseAbs().maxCoeff()));
  // The gravity part of the bias is the gradient of the potential energy.
  Eigen::VectorXd potential_gradient(n);
  for (int i = 0; i < n; ++i) {
    const Eigen::VectorXd step = h * Eigen::VectorXd::Unit(n, i);
    update_positions(model, q + step, data);
    const double up = potential_energy(model, data, kSlantedGravity);
    update_positions(model, q - step, data);
    potential_gradient(i) = (up - potential_energy(model, data, kSlantedGravity)) / (2 * h);
  }
  const Eigen::VectorXd with_gravity = bias_forces(model, data, q, qd, kSlantedGravity);
  EXPECT_LT((with_gravity - coriolis - potential_gradient).cwiseAbs().maxCoeff(),
            1e-5 * (1.0 + potential_gradient.cwiseAbs().maxCoeff()));
}

// Operational-space inertia of a link against (J M^-1 J*)^-1, J column i = V(link) for qd = e_i.
TEST_P(RandomMechanisms, OperationalSpaceInertiaIsInverseOfJacobianCompliance) {
  std::mt19937 rng(800 + GetParam());
  RandomMechanismOptions o = options();
  o.floating_base = true;  // at least 6 dofs on every path
  o.extra_bases = 0;
  const RigidBodyModel model(random_mechanism(o, rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng);
  const Eigen::MatrixXd mass = mass_matrix(model, data, q);
  for (int link = 0; link < model.link_count(); link += 3) {
    Eigen::MatrixXd jacobian(6, n);
    for (int i = 0; i < n; ++i)
      jacobian.col(i) =
          testing_support::node_velocities(model, data, q, Eigen::VectorXd::Unit(n, i))
              .segment<6>(6 * model.node_of_link(link));
    const Eigen::MatrixXd expected = (jacobian * mass.ldlt().solve(jacobian.transpose())).inverse();
    update_positions(model, q, data);
    const Matrix6d inertia = operational_space_inertia(model, data, link);
    EXPECT_LT((inertia - expected).cwiseAbs().maxCoeff(), 1e-7 * scale_of(expected));
  }
}

// Innovations factors reproduce the mass matrix: M = F D F*, F^-1 = [I - H psi K].
// The dynamics functions walk the configuration without the link poses (forward dynamics with
// them); link_poses() then builds or keeps those of their q, equal to update_positions' at that q.
TEST_P(RandomMechanisms, LinkPosesAfterTheDynamicsAreThoseOfTheirConfiguration) {
  std::mt19937 rng(800 + GetParam());
  const RigidBodyModel model(random_mechanism(options(), rng));
  RigidBodyData data(model), reference(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q1 = rigid_random_state(n, rng), q2 = rigid_random_state(n, rng);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(n);
  update_positions(model, q2, reference);
  const auto check = [&](const char* after) {
    const std::vector<Eigen::Isometry3d>& poses = link_poses(model, data);
    for (int k = 0; k < model.node_count(); ++k)
      EXPECT_LT((poses[k].matrix() - reference.link_pose[k].matrix()).cwiseAbs().maxCoeff(), 1e-12)
          << after << ", node " << k;
  };
  update_positions(model, q1, data);
  mass_matrix(model, data, q2);
  check("mass_matrix");
  update_positions(model, q1, data);
  forward_dynamics(model, data, q2, zero, zero, kSlantedGravity);
  check("forward_dynamics");
  update_positions(model, q1, data);
  inverse_dynamics(model, data, q2, zero, zero, kSlantedGravity);
  check("inverse_dynamics");
}

TEST_P(RandomMechanisms, InnovationsFactorsReproduceTheMassMatrix) {
  std::mt19937 rng(900 + GetParam());
  const RigidBodyModel model(random_mechanism(options(), rng));
  RigidBodyData data(model);
  const int n = model.dof_count();
  const Eigen::VectorXd q = rigid_random_state(n, rng);
  InnovationsFactors factors;
  innovations_factors(model, data, q, factors);
  const Eigen::MatrixXd mass = mass_matrix(model, data, q);
  const Eigen::MatrixXd product = factors.newton_euler_factor * factors.innovations_inertia *
                                  factors.newton_euler_factor.transpose();
  EXPECT_LT((product - mass).cwiseAbs().maxCoeff(), 1e-9 * scale_of(mass));
  EXPECT_LT((factors.inverse_factor * factors.newton_euler_factor - Eigen::MatrixXd::Identity(n, n))
                .cwiseAbs()
                .maxCoeff(),
            1e-9);
}

// Seeds 6-11: revolute joints about coordinate axes, mostly with unrotated origins.
INSTANTIATE_TEST_SUITE_P(Seeds, RandomMechanisms, ::testing::Range(0, 12));

}  // namespace
}  // namespace skograph
