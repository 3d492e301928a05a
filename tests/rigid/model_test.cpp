// RigidBodyModel construction: structure, dof names and offsets, and every structural problem
// rejected with std::invalid_argument naming it.
#include "skograph/rigid/rigid_body_model.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "support/rigid_support.hpp"

namespace skograph {
namespace {

Mechanism three_links() {
  Mechanism m;
  m.name = "three";
  for (const char* name : {"base", "arm", "hand"}) {
    Link link;
    link.name = name;
    link.mass = 1.0;
    link.inertia = Eigen::Vector3d(0.1, 0.2, 0.25).asDiagonal();
    m.links.push_back(link);
  }
  Joint fixed;
  fixed.name = "weld";
  fixed.type = JointType::kFixed;
  fixed.parent = -1;
  fixed.child = 0;
  Joint ball;
  ball.name = "shoulder";
  ball.type = JointType::kSpherical;
  ball.parent = 0;
  ball.child = 1;
  Joint hinge;
  hinge.name = "wrist";
  hinge.type = JointType::kRevolute;
  hinge.parent = 1;
  hinge.child = 2;
  hinge.axis = Eigen::Vector3d(0, 0, 2);
  m.joints = {hinge, fixed, ball};  // not in tree order on purpose
  return m;
}

TEST(RigidBodyModel, DofNamesOffsetsAndStructure) {
  const RigidBodyModel model(three_links());
  EXPECT_EQ(model.dof_count(), 4);
  EXPECT_EQ(model.dof_names(),
            (std::vector<std::string>{"wrist", "shoulder:0", "shoulder:1", "shoulder:2"}));
  EXPECT_EQ(model.joint_dof_offset(0), 0);
  EXPECT_EQ(model.joint_dof_offset(2), 1);
  EXPECT_EQ(model.joint_dofs(1), 0);
  EXPECT_EQ(model.node_of_link(2), 0);
  EXPECT_EQ(model.link_of_node(2), 1);
  EXPECT_EQ(model.forest().parent(0), 2);
  EXPECT_EQ(model.forest().parent(2), 1);
  EXPECT_TRUE(model.forest().is_base(1));
  EXPECT_NEAR(model.joint_geometry(0).axis.norm(), 1.0, 1e-15);
  RigidBodyData data(model);
  EXPECT_THROW(update_positions(model, Eigen::VectorXd::Zero(3), data), std::invalid_argument);
}

void expect_rejected(const std::function<void(Mechanism&)>& spoil, const std::string& words) {
  Mechanism m = three_links();
  spoil(m);
  try {
    const RigidBodyModel model(m);
    ADD_FAILURE() << "accepted a mechanism that should fail with: " << words;
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  }
}

TEST(RigidBodyModel, RejectsStructuralProblems) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  expect_rejected([](Mechanism& m) { m.links.clear(), m.joints.clear(); }, "no links");
  expect_rejected([](Mechanism& m) { m.joints[0].child = 7; }, "child link index out of range");
  expect_rejected([](Mechanism& m) { m.joints[0].parent = -2; }, "parent link index out of range");
  expect_rejected([](Mechanism& m) { m.joints[0].parent = 2; }, "connects a link to itself");
  expect_rejected([](Mechanism& m) { m.joints.pop_back(); }, "link 'arm' has no parent joint");
  expect_rejected([](Mechanism& m) { m.joints[2].child = 2; }, "link 'hand' has two parent joints");
  expect_rejected(
      [](Mechanism& m) {
        m.joints[1].parent = 2;  // base hangs from hand: base -> arm -> hand -> base
      },
      "cycle");
  expect_rejected([](Mechanism& m) { m.joints[1].name = "wrist"; }, "two joints are named 'wrist'");
  expect_rejected([](Mechanism& m) { m.links[1].mass = -2.0; }, "negative mass");
  expect_rejected([nan](Mechanism& m) { m.links[1].mass = nan; }, "non-finite");
  expect_rejected([nan](Mechanism& m) { m.links[2].center_of_mass.x() = nan; }, "non-finite");
  expect_rejected([](Mechanism& m) { m.links[2].inertia(0, 1) = 0.01; }, "non-symmetric");
  expect_rejected([](Mechanism& m) { m.joints[0].axis.setZero(); }, "zero-length axis");
  expect_rejected(
      [](Mechanism& m) {
        m.joints[0].origin.translation().y() = std::numeric_limits<double>::infinity();
      },
      "non-finite origin");
  expect_rejected([](Mechanism& m) { m.joints[0].origin.linear() *= 2.0; }, "not orthonormal");
}

// Physical consistency is the readers' policy: the model takes massless links and inconsistent
// inertias as given, and marks the nodes whose subtree carries no mass.
TEST(RigidBodyModel, AcceptsMasslessLinksAndInconsistentInertiasAndMarksMasslessSubtrees) {
  Mechanism m = three_links();
  m.links[2].inertia(1, 1) = -0.2;  // not positive semi-definite
  EXPECT_NO_THROW(RigidBodyModel{m});
  m = three_links();
  m.links[2].inertia(2, 2) = 0.5;  // violates the triangle inequality
  EXPECT_NO_THROW(RigidBodyModel{m});
  // The hand (link 2, on the hinge "wrist", node 0) massless: a massless moving subtree.
  m = three_links();
  m.links[2].mass = 0.0;
  m.links[2].inertia.setZero();
  const RigidBodyModel model(m);
  EXPECT_TRUE(model.carries_no_mass(0));
  EXPECT_FALSE(model.carries_no_mass(2));
  EXPECT_TRUE(model.moves_no_mass(0));
  EXPECT_EQ(model.massless_moving_joints(), std::vector<int>{0});
  // The arm (link 1) massless but the hand below it massive: nothing carries no mass.
  m = three_links();
  m.links[1].mass = 0.0;
  m.links[1].inertia.setZero();
  EXPECT_TRUE(RigidBodyModel(m).massless_moving_joints().empty());
}

TEST(RigidBodyModel, AxisIgnoredWhereUnused) {
  Mechanism m = three_links();
  m.joints[2].axis.setZero();  // spherical joints have no axis
  EXPECT_NO_THROW(RigidBodyModel{m});
}

}  // namespace
}  // namespace skograph
