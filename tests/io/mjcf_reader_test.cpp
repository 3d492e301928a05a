// MJCF through libmujoco (io/mjcf_reader.hpp) against MuJoCo itself on the same file: for a
// floating tree with hinge anchors off the body origins, joint references (ref), two joints in one
// body, a slide, a ball, a welded body and sites, the site poses, the mass matrix and the bias
// forces equal MuJoCo's (mj_forward: site_xpos/site_xmat, mj_fullM of qM, qfrc_bias) at generic
// states. MuJoCo's free-joint velocity is [v_world, omega_body] where skograph's is
// [omega_body; v_body]: qvel = T qd, so M = T* M_mujoco T and C = T* (c_mujoco + M_mujoco Tdot qd).
#include "skograph/io/mjcf_reader.hpp"

#include <gtest/gtest.h>
#include <mujoco/mujoco.h>

#include <cmath>
#include <memory>

#include "skograph/rigid/frames.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/rigid/spatial.hpp"
#include "support/io_support.hpp"

namespace skograph {
namespace {

using io_test::expect_input_error;
using io_test::write_file;

const std::string kRobot = R"(<mujoco model="peer">
  <compiler angle="degree"/>
  <default><geom type="capsule" size="0.03"/></default>
  <worldbody>
    <body name="base" pos="0.1 -0.2 1" euler="10 20 30">
      <freejoint name="float"/>
      <geom type="box" size="0.1 0.08 0.05"/>
      <site name="base_site" pos="0.05 0 0.02" euler="0 0 45"/>
      <body name="torso" pos="0 0 0.1">
        <joint name="yaw" type="hinge" axis="0 0 1" pos="0.05 0 0" ref="20"/>
        <geom fromto="0 0 0 0 0 0.3"/>
        <body name="upper" pos="0 0 0.3" axisangle="1 0 0 15">
          <joint name="pitch" type="hinge" axis="0 1 0" pos="0 0.02 0.01"/>
          <joint name="roll" type="hinge" axis="1 0 0.2" pos="0.03 0 0" ref="-10"/>
          <geom fromto="0 0 0 0.4 0 0"/>
          <site name="elbow" pos="0.4 0 0" euler="0 90 0"/>
          <body name="slider" pos="0.4 0 0">
            <joint name="extend" type="slide" axis="1 0 0.5" pos="0 0 0.05" ref="0.1"/>
            <geom type="box" size="0.1 0.02 0.02" pos="0.1 0 0"/>
            <body name="hand" pos="0.2 0 0" quat="0.9 0.1 0.2 0.3">
              <joint name="wrist" type="ball" pos="0.01 0.02 0"/>
              <geom type="ellipsoid" size="0.05 0.03 0.02" pos="0.05 0 0.01"/>
              <body name="tool" pos="0.1 0 0" xyaxes="0 1 0 -1 0 0">
                <geom type="sphere" size="0.02" pos="0.01 0 0"/>
                <site name="tcp" pos="0.03 0.01 0"/>
              </body>
            </body>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
</mujoco>
)";

struct MujocoModel {
  explicit MujocoModel(const std::string& path) {
    char error[512] = "";
    model = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
    EXPECT_NE(model, nullptr) << error;
    data = mj_makeData(model);
  }
  ~MujocoModel() {
    mj_deleteData(data);
    mj_deleteModel(model);
  }
  mjModel* model = nullptr;
  mjData* data = nullptr;
};

TEST(MjcfReader, SitePosesMassMatrixAndBiasEqualMujocosOwn) {
  const std::string path = write_file("peer.xml", kRobot);
  const Mechanism mechanism = read_mjcf_file(path);
  // Bodies: base, torso, upper (two joints: a massless "upper/pitch" link first), slider, hand,
  // tool (welded); sites as frames.
  EXPECT_GE(mechanism.find_link("upper/pitch"), 0);
  EXPECT_EQ(mechanism.joints[mechanism.parent_joint(mechanism.find_link("tool"))].type,
            JointType::kFixed);
  const RigidBodyModel model(mechanism);
  ASSERT_EQ(model.dof_count(), 13);  // 6 + 1 + 2 + 1 + 3
  MujocoModel peer(path);
  ASSERT_EQ(peer.model->nv, 13);
  RigidBodyData data(model);
  const Eigen::Vector3d gravity(0, 0, -9.81);
  for (int trial = 0; trial < 3; ++trial) {
    SCOPED_TRACE(trial);
    Eigen::VectorXd q(13), qd(13);
    for (int i = 0; i < 13; ++i) {
      q(i) = 0.4 * std::sin(1.7 * i + trial);
      qd(i) = 0.9 * std::cos(0.7 * i + 2.0 * trial);
    }
    // MuJoCo's qpos: the free joint at the file pose times skograph's motion; hinge and slide at
    // qpos0 + q; the ball as the quaternion of the rotation vector.
    mjData* d = peer.data;
    const Eigen::Isometry3d placed = model.mechanism().joints[0].origin;
    const Eigen::Matrix3d rotation = placed.linear() * rotation_from_vector(q.segment<3>(0));
    const Eigen::Vector3d position = placed * Eigen::Vector3d(q.segment<3>(3));
    const Eigen::Quaterniond base(rotation);
    const double free_pose[7] = {position.x(), position.y(), position.z(), base.w(),
                                 base.x(),     base.y(),     base.z()};
    for (int i = 0; i < 7; ++i) d->qpos[i] = free_pose[i];
    for (int i = 7; i < 11; ++i) d->qpos[i] = peer.model->qpos0[i] + q(i - 1);
    const Eigen::Quaterniond wrist(
        Eigen::AngleAxisd(q.segment<3>(10).norm(), q.segment<3>(10).normalized()));
    const double wrist_pose[4] = {wrist.w(), wrist.x(), wrist.y(), wrist.z()};
    for (int i = 0; i < 4; ++i) d->qpos[11 + i] = wrist_pose[i];
    // qvel = T qd: v_world = R v_body, omega_body = omega_body.
    Eigen::MatrixXd transform = Eigen::MatrixXd::Identity(13, 13);
    transform.block<6, 6>(0, 0).setZero();
    transform.block<3, 3>(0, 3) = rotation;
    transform.block<3, 3>(3, 0).setIdentity();
    const Eigen::VectorXd qvel = transform * qd;
    for (int i = 0; i < 13; ++i) d->qvel[i] = qvel(i);
    mj_forward(peer.model, d);

    update_positions(model, q, data);
    for (const char* site : {"base_site", "elbow", "tcp"}) {
      SCOPED_TRACE(site);
      const int id = mj_name2id(peer.model, mjOBJ_SITE, site);
      const Eigen::Isometry3d pose = frame_pose(model, data, find_frame(model, site));
      const Eigen::Vector3d expected_position(d->site_xpos + 3 * id);
      const Eigen::Matrix<double, 3, 3, Eigen::RowMajor> expected_rotation(d->site_xmat + 9 * id);
      EXPECT_TRUE(pose.translation().isApprox(expected_position, 1e-12));
      EXPECT_TRUE(pose.linear().isApprox(expected_rotation, 1e-12));
    }
    Eigen::Matrix<double, 13, 13, Eigen::RowMajor> peer_mass;
    mj_fullM(peer.model, peer_mass.data(), d->qM);
    const Eigen::MatrixXd expected_mass = transform.transpose() * peer_mass * transform;
    const Eigen::MatrixXd mass = mass_matrix(model, data, q);
    EXPECT_LE((mass - expected_mass).cwiseAbs().maxCoeff(), 1e-12 * expected_mass.norm())
        << mass << "\nvs\n"
        << expected_mass;
    // Tdot qd = [R (omega_body x v_body); 0].
    Eigen::VectorXd transform_rate = Eigen::VectorXd::Zero(13);
    transform_rate.head<3>() =
        rotation * Eigen::Vector3d(qd.segment<3>(0)).cross(Eigen::Vector3d(qd.segment<3>(3)));
    const Eigen::VectorXd expected_bias =
        transform.transpose() *
        (Eigen::Map<const Eigen::VectorXd>(d->qfrc_bias, 13) + peer_mass * transform_rate);
    const Eigen::VectorXd bias = bias_forces(model, data, q, qd, gravity);
    EXPECT_LE((bias - expected_bias).cwiseAbs().maxCoeff(), 1e-11 * expected_bias.norm())
        << bias.transpose() << "\nvs\n"
        << expected_bias.transpose();
  }
}

// Welds (relpose), connects and joint equalities become loops and couplings whose frames coincide
// at qpos0, where MuJoCo takes them to be satisfied.
TEST(MjcfReader, EqualitiesBecomeLoopsAndCouplings) {
  const std::string path = write_file("closed.xml", R"(<mujoco>
  <worldbody>
    <body name="a" pos="0 0 1"><joint name="ja" axis="0 1 0" ref="0.2"/><geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/>
      <body name="b" pos="0.3 0 0"><joint name="jb" axis="0 1 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0.3 0 0"/></body>
    </body>
    <body name="c" pos="0.6 0 1"><joint name="jc" axis="0 1 0"/><geom type="capsule" size="0.05" fromto="0 0 0 0 0 -0.3"/></body>
    <body name="d" pos="0 1 1"><joint name="jd" type="slide" axis="1 0 0"/><geom size="0.05"/></body>
  </worldbody>
  <equality>
    <connect name="pin" body1="b" body2="c" anchor="0.3 0 0"/>
    <weld name="glue" body1="d" relpose="0 -1 -1 1 0 0 0"/>
    <weld name="glue2" body1="a" body2="c"/>
    <joint name="gear" joint1="jd" joint2="ja" polycoef="0.05 2 0 0 0"/>
    <connect name="off" body1="a" anchor="0 0 0" active="false"/>
  </equality>
</mujoco>
)");
  const Mechanism m = read_mjcf_file(path);
  ASSERT_EQ(m.loops.size(), 3u);
  EXPECT_EQ(m.loops[0].type, LoopType::kSpherical);
  EXPECT_EQ(m.loops[0].source_line, 10);
  EXPECT_EQ(m.loops[1].type, LoopType::kWeld);
  EXPECT_EQ(m.loops[1].child, -1);  // body2 defaults to the world
  EXPECT_EQ(m.loops[2].type, LoopType::kWeld);
  ASSERT_EQ(m.couplings.size(), 1u);
  EXPECT_EQ(m.joints[m.couplings[0].joint_a].name, "jd");
  EXPECT_EQ(m.joints[m.couplings[0].joint_b].name, "ja");
  EXPECT_DOUBLE_EQ(m.couplings[0].ratio, 2.0);
  EXPECT_DOUBLE_EQ(m.couplings[0].offset, 0.05);
  ASSERT_EQ(m.warnings.size(), 1u);
  EXPECT_NE(m.warnings[0].find("equality 'off' is inactive"), std::string::npos) << m.warnings[0];
  // At q = 0 (MuJoCo's qpos0) the frames of each loop coincide: the connect's, the weld whose
  // relpose MuJoCo took from qpos0, and the weld with a relpose satisfied there (the world origin
  // seen from d).
  const RigidBodyModel model(m);
  RigidBodyData data(model);
  update_positions(model, Eigen::VectorXd::Zero(model.dof_count()), data);
  auto world = [&](int link, const Eigen::Isometry3d& origin) {
    return link < 0 ? origin : data.link_pose[model.node_of_link(link)] * origin;
  };
  for (const LoopClosure& loop : m.loops) {
    SCOPED_TRACE(loop.name);
    const Eigen::Isometry3d p = world(loop.parent, loop.parent_origin);
    const Eigen::Isometry3d c = world(loop.child, loop.child_origin);
    EXPECT_TRUE(p.translation().isApprox(c.translation(), 1e-12));
    if (loop.type == LoopType::kWeld) {
      EXPECT_TRUE(p.linear().isApprox(c.linear(), 1e-12));
    }
  }
}

TEST(MjcfReader, EachKindOfBadInputIsOneLineWithItsLine) {
  struct Case {
    std::string name, text;
    int line;
    std::string problem;
  };
  const std::string body =
      "<body name=\"x\"><joint name=\"a\"/><geom size=\"0.1\"/>\n"
      "<body name=\"y\"><joint name=\"b\"/><geom size=\"0.1\"/></body></body>\n";
  const Case cases[] = {
      {"malformed.xml", "<mujoco>\n<worldbody>\n<body name=\"x\">\n</worldbody>\n</mujoco>\n", 3,
       "malformed XML"},
      {"type.xml",
       "<mujoco>\n<worldbody>\n<body>\n<joint type=\"hing\"/>\n</body>\n</worldbody>\n</mujoco>\n",
       4, "invalid keyword: 'hing'"},
      {"missing.xml",
       "<mujoco>\n<worldbody>\n" + body +
           "</worldbody>\n<equality>\n<connect body1=\"x\" body2=\"nope\" anchor=\"0 0 0\"/>\n"
           "</equality>\n</mujoco>\n",
       7, "unknown element 'nope'"},
      {"cubic.xml",
       "<mujoco>\n<worldbody>\n" + body +
           "</worldbody>\n<equality>\n<joint joint1=\"a\" joint2=\"b\" polycoef=\"0 1 0 0.5 0\"/>\n"
           "</equality>\n</mujoco>\n",
       7, "polycoef terms beyond the linear one (c3 = 0.5)"},
      {"lock.xml",
       "<mujoco>\n<worldbody>\n" + body +
           "</worldbody>\n<equality>\n<joint joint1=\"a\"/>\n</equality>\n</mujoco>\n",
       7, "locks joint 'a'"},
      {"zero.xml",
       "<mujoco>\n<worldbody>\n" + body +
           "</worldbody>\n<equality>\n<joint joint1=\"a\" joint2=\"b\" polycoef=\"0.1 0 0 0 0\"/>\n"
           "</equality>\n</mujoco>\n",
       7, "c1 = 0"},
      {"root.xml", "<robot name=\"r\"/>\n", 0, ""},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string path = write_file(c.name, c.text);
    if (c.problem.empty()) {
      EXPECT_THROW(read_mjcf_file(path), InputError);
      continue;
    }
    expect_input_error([&] { read_mjcf_file(path); }, path, c.line, c.problem);
  }
  expect_input_error([] { read_mjcf_file("/nonexistent/model.xml"); }, "/nonexistent/model.xml", 0,
                     "cannot open the file");
}

}  // namespace
}  // namespace skograph
