// Kinematics against DART on the 8 benchmark robots of ../shared/robots/benchmark (the
// same URDF files through dart::utils::DartLoader; skipped when ../shared is absent): every body's
// world transform, the world-aligned Jacobian about the body's origin (DART's getWorldJacobian,
// [angular; linear] in world axes) column by column over the 1-dof joints, the centre of mass,
// its Jacobian and the total mass, at a generic state set joint by joint by name. Floating bases
// stay at their file pose on both sides.
#include <gtest/gtest.h>

#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/Inertia.hpp>
#include <dart/dynamics/Joint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "skograph/io/mechanism_file.hpp"
#include "skograph/model/kinematics.hpp"

namespace skograph {
namespace {

namespace fs = std::filesystem;

const fs::path kBenchmark =
    fs::path(SKOGRAPH_SOURCE_DIR) / ".." / "shared" / "robots" / "benchmark";

class DartKinematics : public testing::TestWithParam<const char*> {};

TEST_P(DartKinematics, PosesJacobiansAndCentreOfMassAgree) {
  const fs::path path = kBenchmark / GetParam();
  if (!fs::exists(path)) GTEST_SKIP() << path << " is absent";
  const Model model = load_model(path.string());
  dart::utils::DartLoader loader;
  const dart::dynamics::SkeletonPtr skeleton =
      loader.parseSkeleton(dart::common::Uri::createFromPath(path.string()));
  ASSERT_TRUE(skeleton);
  // DART gives a link without <inertial> 1 kg; URDF (and skograph) none.
  std::ostringstream silenced;
  std::streambuf* const error_stream = std::cerr.rdbuf(silenced.rdbuf());
  for (const Link& link : read_mechanism_file(path.string()).links)
    if (link.mass == 0.0)
      if (dart::dynamics::BodyNode* body = skeleton->getBodyNode(link.name))
        body->setInertia(
            dart::dynamics::Inertia(0.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero()));
  std::cerr.rdbuf(error_stream);

  // The same generic value on each 1-dof joint of both, by name.
  const std::vector<std::string>& names = model.dof_names();
  Eigen::VectorXd q = Eigen::VectorXd::Zero(model.dof_count());
  Eigen::VectorXd dart_q = Eigen::VectorXd::Zero(static_cast<Eigen::Index>(skeleton->getNumDofs()));
  std::map<int, int> column;  // skograph dof -> DART dof
  for (std::size_t j = 0; j < skeleton->getNumJoints(); ++j) {
    const dart::dynamics::Joint* joint = skeleton->getJoint(j);
    if (joint->getNumDofs() != 1) continue;
    const auto at = std::find(names.begin(), names.end(), joint->getName());
    if (at == names.end()) continue;
    const int i = static_cast<int>(at - names.begin());
    const double value = 0.7 * std::sin(1.3 * i + 0.4);
    q(i) = value;
    dart_q(static_cast<Eigen::Index>(joint->getIndexInSkeleton(0))) = value;
    column[i] = static_cast<int>(joint->getIndexInSkeleton(0));
  }
  ASSERT_GT(column.size(), 5u);
  skeleton->setPositions(dart_q);
  ModelData data(model);
  int bodies = 0;
  for (std::size_t b = 0; b < skeleton->getNumBodyNodes(); ++b) {
    const dart::dynamics::BodyNode* body = skeleton->getBodyNode(b);
    const std::string& name = body->getName();
    SCOPED_TRACE(name);
    const Eigen::Isometry3d pose = frame_pose(model, data, q, name);
    EXPECT_LT((pose.matrix() - body->getWorldTransform().matrix()).cwiseAbs().maxCoeff(), 1e-12);
    const Eigen::MatrixXd jacobian = frame_jacobian(model, data, q, name, FrameAxes::kWorld);
    const Eigen::MatrixXd dart_jacobian = body->getWorldJacobian();
    const auto& dependent = body->getDependentGenCoordIndices();
    for (const auto& [mine, theirs] : column) {
      const bool moves = std::find(dependent.begin(), dependent.end(),
                                   static_cast<std::size_t>(theirs)) != dependent.end();
      // DART's Jacobian has the columns of the joints above the body only.
      Vector6d expected = Vector6d::Zero();
      if (moves)
        expected = dart_jacobian.col(
            std::find(dependent.begin(), dependent.end(), static_cast<std::size_t>(theirs)) -
            dependent.begin());
      EXPECT_LT((jacobian.col(mine) - expected).cwiseAbs().maxCoeff(), 1e-12) << names[mine];
    }
    ++bodies;
  }
  EXPECT_GT(bodies, 5);
  EXPECT_NEAR(total_mass(model), skeleton->getMass(), 1e-12 * skeleton->getMass());
  EXPECT_LT((center_of_mass(model, data, q) - skeleton->getCOM()).cwiseAbs().maxCoeff(), 1e-12);
  const Eigen::MatrixXd com_jacobian = center_of_mass_jacobian(model, data, q);
  const Eigen::MatrixXd dart_com_jacobian = skeleton->getCOMLinearJacobian();
  for (const auto& [mine, theirs] : column)
    EXPECT_LT((com_jacobian.col(mine) - dart_com_jacobian.col(theirs)).cwiseAbs().maxCoeff(), 1e-12)
        << names[mine];
}

INSTANTIATE_TEST_SUITE_P(BenchmarkRobots, DartKinematics,
                         testing::Values("anymal_c_float.urdf", "panda.urdf", "pr2.urdf",
                                         "solo12_float.urdf", "talos_float.urdf", "tiago_pro.urdf",
                                         "ur5.urdf", "z1.urdf"),
                         [](const testing::TestParamInfo<const char*>& robot) {
                           std::string name = robot.param;
                           for (char& c : name)
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           return name;
                         });

}  // namespace
}  // namespace skograph
