// Open trees (bench/peers/main.cpp): forward dynamics, inverse dynamics, the mass matrix and a
// frame Jacobian per call, skograph against MuJoCo and DART on the same robot files.
//
// What is timed (each call from a state set once; the same generic state, joint by joint):
//   skograph  forward_dynamics, inverse_dynamics, mass_matrix (each including its kinematics), on
//             the file as the command line loads it (fixed bodies fused, joints depth first)
//   MuJoCo    mj_forward (contacts, constraints and passive forces disabled); mj_kinematics,
//             mj_comPos, mj_comVel and mj_rne; mj_kinematics, mj_comPos, mj_crb and mj_fullM
//             (each call with the kinematics it needs, as skograph's); URDF through MuJoCo's own
//             importer, static bodies fused by MuJoCo
//   DART      computeForwardDynamics, computeInverseDynamics, getMassMatrix after setPositions
//             (alternating between two states, so that DART's caches are invalidated), URDF
//             through dart::utils::DartLoader
// The frame Jacobian: of the last link skograph keeps that MuJoCo and DART also have
// as a body, world axes about its origin: skograph update_positions + frame_jacobian; MuJoCo
// mj_kinematics + mj_comPos + mj_jacBody; DART setPositions + getWorldJacobian.
// Before timing, the joint-space mass matrices over the 1-dof joints (by joint name) are compared
// across the libraries, so that the three compute the same robot.
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "peers.hpp"
#include "skograph/io/mechanism_file.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/rigid/kinematics.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

#ifdef SKOGRAPH_PEERS_WITH_DART
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/Inertia.hpp>
#include <dart/dynamics/Joint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/utils/urdf/DartLoader.hpp>
#endif

namespace skograph::peers {
namespace {

struct SkographSide {
  explicit SkographSide(const std::string& path)
      : loaded(load_model(path)), model(loaded.tree()), data(model) {
    const int n = model.dof_count();
    q.setZero(n);
    qd.setZero(n);
    qdd.setZero(n);
    tau.setZero(n);
    for (int j = 0; j < model.joint_count(); ++j) {
      const Joint& joint = model.mechanism().joints[j];
      const int offset = model.joint_dof_offset(j);
      for (int d = 0; d < model.joint_dofs(j); ++d) {
        const int i = offset + d;
        const int seed = static_cast<int>(std::hash<std::string>{}(joint.name) % 97) + d;
        // Multi-dof joints stay at q = 0 (the file's pose, MuJoCo's qpos0, DART's identity).
        if (model.joint_dofs(j) == 1) q(i) = generic(seed, 0.4, 0.1);
        qd(i) = generic(seed, 0.8, 1.2);
        qdd(i) = generic(seed, 1.0, 2.3);
        tau(i) = generic(seed, 2.0, 3.4);
      }
    }
  }
  Model loaded;  // through the library's loading path (model/model.hpp)
  const RigidBodyModel& model;
  RigidBodyData data;
  Eigen::VectorXd q, qd, qdd, tau;
  const Eigen::Vector3d gravity = Eigen::Vector3d(0, 0, -9.81);
};

// The 1-dof joints' names and dof indices, to compare mass matrices across libraries.
JointDofs skograph_joint_dofs(const RigidBodyModel& model) {
  JointDofs dofs;
  for (int j = 0; j < model.joint_count(); ++j)
    if (model.joint_dofs(j) == 1)
      dofs[model.mechanism().joints[j].name] = model.joint_dof_offset(j);
  return dofs;
}

struct MujocoSide {
  explicit MujocoSide(const std::string& path, const SkographSide& reference) {
    char error[1024] = "";
    model = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
    if (!model) {
      failure = error;
      return;
    }
    model->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT | mjDSBL_PASSIVE;
    data = mj_makeData(model);
    result.resize(model->nv);
    dense.resize(model->nv, model->nv);
    // The same generic state joint by joint (free and ball joints: identity orientation and the
    // rates of their dofs).
    for (int j = 0; j < model->njnt; ++j) {
      const char* name = mj_id2name(model, mjOBJ_JOINT, j);
      const int qa = model->jnt_qposadr[j], va = model->jnt_dofadr[j];
      const int nv = model->jnt_type[j] == mjJNT_FREE   ? 6
                     : model->jnt_type[j] == mjJNT_BALL ? 3
                                                        : 1;
      const std::string joint = name ? name : "";
      const int seed = static_cast<int>(std::hash<std::string>{}(joint) % 97);
      if (nv == 1) {
        data->qpos[qa] = model->qpos0[qa] + generic(seed, 0.4, 0.1);
        dofs[joint] = va;
      }
      for (int d = 0; d < nv; ++d) {
        data->qvel[va + d] = generic(seed + d, 0.8, 1.2);
        data->qacc[va + d] = generic(seed + d, 1.0, 2.3);
        data->qfrc_applied[va + d] = generic(seed + d, 2.0, 3.4);
      }
    }
    (void)reference;
    mj_forward(model, data);
    mj_fullM(model, dense.data(), data->qM);
  }
  ~MujocoSide() {
    if (data) mj_deleteData(data);
    if (model) mj_deleteModel(model);
  }
  mjModel* model = nullptr;
  mjData* data = nullptr;
  std::string failure;
  Eigen::VectorXd result;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense, jacobian;
  JointDofs dofs;
};

#ifdef SKOGRAPH_PEERS_WITH_DART
struct DartSide {
  explicit DartSide(const std::string& path) {
    if (std::filesystem::path(path).extension() != ".urdf") return;  // DART reads URDF only
    dart::utils::DartLoader loader;
    skeleton = loader.parseSkeleton(dart::common::Uri::createFromPath(path));
    if (!skeleton) return;
    // DART gives a link without <inertial> 1 kg; URDF (and skograph, MuJoCo) give it none. DART
    // warns about each zero inertia on std::cerr: silenced for these calls.
    std::ostringstream silenced;
    std::streambuf* const error_stream = std::cerr.rdbuf(silenced.rdbuf());
    for (const Link& link : read_mechanism_file(path).links)
      if (link.mass == 0.0)
        if (dart::dynamics::BodyNode* body = skeleton->getBodyNode(link.name))
          body->setInertia(
              dart::dynamics::Inertia(0.0, Eigen::Vector3d::Zero(), Eigen::Matrix3d::Zero()));
    std::cerr.rdbuf(error_stream);
    skeleton->setGravity(Eigen::Vector3d(0, 0, -9.81));
    const int n = static_cast<int>(skeleton->getNumDofs());
    q.setZero(n);
    qd.setZero(n);
    qdd.setZero(n);
    tau.setZero(n);
    for (std::size_t j = 0; j < skeleton->getNumJoints(); ++j) {
      dart::dynamics::Joint* joint = skeleton->getJoint(j);
      const int seed = static_cast<int>(std::hash<std::string>{}(joint->getName()) % 97);
      for (std::size_t d = 0; d < joint->getNumDofs(); ++d) {
        const int i = static_cast<int>(joint->getIndexInSkeleton(d));
        if (joint->getNumDofs() == 1) {
          q(i) = generic(seed, 0.4, 0.1);
          dofs[joint->getName()] = i;
        }
        qd(i) = generic(seed + static_cast<int>(d), 0.8, 1.2);
        qdd(i) = generic(seed + static_cast<int>(d), 1.0, 2.3);
        tau(i) = generic(seed + static_cast<int>(d), 2.0, 3.4);
      }
    }
    skeleton->setPositions(q);
    skeleton->setVelocities(qd);
  }
  dart::dynamics::SkeletonPtr skeleton;
  Eigen::VectorXd q, q_other, qd, qdd, tau;
  bool flip = false;
  JointDofs dofs;
};
#endif

struct Row {
  std::string robot;
  int dofs = 0;
  std::string frame;       // the body of the Jacobians
  double time[4][3] = {};  // [algo: fd, id, mass, jac][library: skograph, mujoco, dart]; 0 = none
};

const char* const kAlgos[4] = {"forward dynamics", "inverse dynamics", "mass matrix",
                               "frame Jacobian (the last body in the table's note)"};

Row bench_robot(const std::string& path, int rounds) {
  Row row;
  row.robot = std::filesystem::path(path).filename().string();
  SkographSide sk(path);
  row.dofs = sk.model.dof_count();
  MujocoSide mj(path, sk);
  if (!mj.failure.empty())
    std::fprintf(stderr, "%s: MuJoCo cannot load it: %s\n", row.robot.c_str(), mj.failure.c_str());
  const Eigen::MatrixXd sk_mass = mass_matrix(sk.model, sk.data, sk.q);
  const JointDofs sk_dofs = skograph_joint_dofs(sk.model);
  if (mj.model)
    std::printf("  %-28s mass matrix skograph vs MuJoCo over the 1-dof joints: %.1e relative\n",
                row.robot.c_str(), mass_difference(sk_mass, sk_dofs, mj.dense, mj.dofs));
  double sink = 0.0;
  std::vector<Task> tasks;
  tasks.push_back({"sk fd", [&] {
                     sink +=
                         forward_dynamics(sk.model, sk.data, sk.q, sk.qd, sk.tau, sk.gravity)(0);
                   }});
  tasks.push_back({"sk id", [&] {
                     sink +=
                         inverse_dynamics(sk.model, sk.data, sk.q, sk.qd, sk.qdd, sk.gravity)(0);
                   }});
  tasks.push_back({"sk mass", [&] { sink += mass_matrix(sk.model, sk.data, sk.q)(0, 0); }});
  // The Jacobian's body: the last link of skograph's model that the others have too.
  int mujoco_body = -1;
  for (auto link = sk.model.mechanism().links.rbegin(); link != sk.model.mechanism().links.rend();
       ++link) {
    const int id = mj.model ? mj_name2id(mj.model, mjOBJ_BODY, link->name.c_str()) : 0;
    if (id < 0) continue;
    row.frame = link->name;
    mujoco_body = id;
    break;
  }
  const FrameRef frame =
      find_frame(sk.model, row.frame.empty() ? sk.model.mechanism().links.back().name : row.frame);
  Eigen::MatrixXd sk_jacobian(6, sk.model.dof_count());
  tasks.push_back({"sk jac", [&] {
                     update_positions(sk.model, sk.q, sk.data);
                     frame_jacobian(sk.model, sk.data, frame, FrameAxes::kWorld, sk_jacobian);
                     sink += sk_jacobian(0, 0);
                   }});
  if (mj.model) {
    mjModel* m = mj.model;
    mjData* d = mj.data;
    tasks.push_back({"mj fd", [&, m, d] {
                       mj_forward(m, d);
                       sink += d->qacc[0];
                     }});
    // Like skograph's, the timed calls include the kinematics they need.
    tasks.push_back({"mj id", [&, m, d] {
                       mj_kinematics(m, d);
                       mj_comPos(m, d);
                       mj_comVel(m, d);
                       mj_rne(m, d, 1, mj.result.data());
                       sink += mj.result(0);
                     }});
    tasks.push_back({"mj mass", [&, m, d] {
                       mj_kinematics(m, d);
                       mj_comPos(m, d);
                       mj_crb(m, d);
                       mj_fullM(m, mj.dense.data(), d->qM);
                       sink += mj.dense(0, 0);
                     }});
    if (mujoco_body >= 0) {
      mj.jacobian.resize(6, m->nv);
      tasks.push_back({"mj jac", [&, m, d, mujoco_body] {
                         mj_kinematics(m, d);
                         mj_comPos(m, d);
                         mj_jacBody(m, d, mj.jacobian.data(), mj.jacobian.data() + 3 * m->nv,
                                    mujoco_body);
                         sink += mj.jacobian(0, 0);
                       }});
    }
  }
#ifdef SKOGRAPH_PEERS_WITH_DART
  DartSide dart(path);
  if (dart.skeleton) {
    const Eigen::MatrixXd dart_mass = dart.skeleton->getMassMatrix();
    std::printf("  %-28s mass matrix skograph vs DART over the 1-dof joints: %.1e relative\n",
                row.robot.c_str(), mass_difference(sk_mass, sk_dofs, dart_mass, dart.dofs));
    auto& s = dart.skeleton;
    // DART skips setPositions when the values do not change (and keeps its cached results):
    // alternate between q and q + 1e-9.
    dart.q_other = dart.q.array() + 1e-9;
    tasks.push_back({"dart fd", [&] {
                       dart.flip = !dart.flip;
                       s->setPositions(dart.flip ? dart.q : dart.q_other);
                       s->setVelocities(dart.qd);
                       s->setForces(dart.tau);
                       s->computeForwardDynamics();
                       sink += s->getAccelerations()(0);
                     }});
    tasks.push_back({"dart id", [&] {
                       dart.flip = !dart.flip;
                       s->setPositions(dart.flip ? dart.q : dart.q_other);
                       s->setVelocities(dart.qd);
                       s->setAccelerations(dart.qdd);
                       s->computeInverseDynamics();
                       sink += s->getForces()(0);
                     }});
    tasks.push_back({"dart mass", [&] {
                       dart.flip = !dart.flip;
                       s->setPositions(dart.flip ? dart.q : dart.q_other);
                       sink += s->getMassMatrix()(0, 0);
                     }});
    if (dart::dynamics::BodyNode* body = s->getBodyNode(row.frame)) {
      tasks.push_back({"dart jac", [&, body] {
                         dart.flip = !dart.flip;
                         s->setPositions(dart.flip ? dart.q : dart.q_other);
                         sink += body->getWorldJacobian()(0, 0);
                       }});
    }
  }
#endif
  run_interleaved(tasks, rounds);
  const std::map<std::string, int> library = {{"sk", 0}, {"mj", 1}, {"dart", 2}};
  const std::map<std::string, int> algo = {{"fd", 0}, {"id", 1}, {"mass", 2}, {"jac", 3}};
  for (const Task& task : tasks) {
    const auto space = task.name.find(' ');
    row.time[algo.at(task.name.substr(space + 1))][library.at(task.name.substr(0, space))] =
        median(task.samples) * 1e-3;
  }
  if (!std::isfinite(sink)) std::fprintf(stderr, "%s: non-finite results\n", row.robot.c_str());
  return row;
}

}  // namespace

void bench_robots(const std::vector<std::string>& files, int rounds) {
  std::vector<Row> rows;
  for (const std::string& file : files) rows.push_back(bench_robot(file, rounds));
  for (int a = 0; a < 4; ++a) {
    std::printf("\n%s\n| robot | dofs | skograph | MuJoCo | DART |\n|---|---:|---:|---:|---:|\n",
                kAlgos[a]);
    for (const Row& row : rows) {
      std::printf("| %s%s | %d | %.2f |", row.robot.c_str(),
                  a == 3 ? (" (" + row.frame + ")").c_str() : "", row.dofs, row.time[a][0]);
      for (int lib = 1; lib < 3; ++lib) {
        if (row.time[a][lib] > 0)
          std::printf(" %.2f (%.2f) |", row.time[a][lib], row.time[a][lib] / row.time[a][0]);
        else
          std::printf(" - |");
      }
      std::printf("\n");
    }
  }
}

}  // namespace skograph::peers
