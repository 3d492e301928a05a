// The automotive differential of examples/models/differential.yaml (a coupling over three
// joints, constraint-embedding §9): forward dynamics by constraint embedding against the dense
// Lagrange-multiplier solve of the same mechanism, [M G*; G 0] [qdd; -lambda] = [tau - C; 0] with
// the couplings' constant rows G (q_drive - 3.7 q_ring = 0, q_ring - q_left / 2 - q_right / 2 = 0),
// at random states; and what a differential does: equal wheels under a drive torque alone, the
// unbraked wheel faster when one is braked, the carrier at the wheels' mean.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <filesystem>
#include <random>

#include "skograph/model/dynamics.hpp"

namespace skograph {
namespace {

const std::string kDifferential =
    (std::filesystem::path(SKOGRAPH_SOURCE_DIR) / "examples" / "models" / "differential.yaml")
        .string();

// Dofs in the file's order: drive, ring, left_axle, right_axle.
Eigen::VectorXd by_multipliers(const Model& model, ModelData& data, const Eigen::VectorXd& q,
                               const Eigen::VectorXd& qd, const Eigen::VectorXd& tau) {
  Eigen::MatrixXd g(2, 4);
  g << 1, -3.7, 0, 0, 0, 1, -0.5, -0.5;
  const Eigen::MatrixXd mass = mass_matrix(model, data, q);
  const Eigen::VectorXd bias = bias_forces(model, data, q, qd);
  Eigen::MatrixXd kkt = Eigen::MatrixXd::Zero(6, 6);
  kkt.topLeftCorner(4, 4) = mass;
  kkt.topRightCorner(4, 2) = g.transpose();
  kkt.bottomLeftCorner(2, 4) = g;
  Eigen::VectorXd right = Eigen::VectorXd::Zero(6);
  right.head(4) = tau - bias;
  return kkt.fullPivLu().solve(right).head(4);
}

TEST(Differential, EmbeddingEqualsTheDenseMultiplierSolve) {
  const Model model = load_model(kDifferential);
  ASSERT_TRUE(model.is_closed_chain());
  ASSERT_EQ(model.dof_names(),
            (std::vector<std::string>{"drive", "ring", "left_axle", "right_axle"}));
  ModelData data(model);
  std::mt19937 rng(28);
  std::uniform_real_distribution<double> uniform(-3.0, 3.0);
  for (int trial = 0; trial < 10; ++trial) {
    Eigen::VectorXd q(4), qd(4), tau(4);
    for (int i = 0; i < 4; ++i)
      q(i) = uniform(rng), qd(i) = uniform(rng), tau(i) = 10 * uniform(rng);
    const ClosedState closed = close_state(model, data, q, qd);
    const Eigen::VectorXd qdd = forward_dynamics(model, data, closed.q, closed.qd, tau);
    const Eigen::VectorXd reference = by_multipliers(model, data, closed.q, closed.qd, tau);
    EXPECT_LT((qdd - reference).cwiseAbs().maxCoeff(),
              1e-10 * (1 + reference.cwiseAbs().maxCoeff()))
        << "trial " << trial;
    // The closed state keeps the couplings.
    EXPECT_NEAR(closed.q(0), 3.7 * closed.q(1), 1e-12);
    EXPECT_NEAR(closed.q(1), 0.5 * (closed.q(2) + closed.q(3)), 1e-12);
  }
}

TEST(Differential, SplitsTheDriveTorqueAndSendsMotionToTheFreeWheel) {
  const Model model = load_model(kDifferential);
  ModelData data(model);
  const Eigen::VectorXd zero = Eigen::VectorXd::Zero(4);
  Eigen::VectorXd tau = zero;
  tau(0) = 40.0;  // the drive shaft alone: both wheels alike (the wheels are mirror images)
  const Eigen::VectorXd even = forward_dynamics(model, data, zero, zero, tau);
  EXPECT_NEAR(even(2), even(3), 1e-12 * std::abs(even(2)));
  EXPECT_GT(even(2), 0.0);
  tau(2) = -30.0;  // brake the left wheel
  const Eigen::VectorXd braked = forward_dynamics(model, data, zero, zero, tau);
  EXPECT_LT(braked(2), braked(3));
  EXPECT_NEAR(braked(1), 0.5 * (braked(2) + braked(3)), 1e-12 * std::abs(braked(1)));
  EXPECT_NEAR(braked(0), 3.7 * braked(1), 1e-12 * std::abs(braked(0)));
}

}  // namespace
}  // namespace skograph
