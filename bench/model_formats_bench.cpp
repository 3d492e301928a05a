// Reading robots as they ship: each model format (file to fused mechanism, the `load_mechanism`
// path of the command line) and the cost of bodies on fixed joints.
//
//   BM_LoadModel/<file>          load_model of an example (URDF, YAML, MJCF, SDF): read, fuse,
//   order, build BM_AnymalLike{Fd,Id,Mass}/0  an ANYmal-like quadruped as shipped: 13 moving bodies
//   and 65 on
//                                fixed joints (sensors, covers, feet), every link a recursion node
//   BM_AnymalLike{Fd,Id,Mass}/1  the same after fuse_fixed_bodies (13 nodes)
// With ../shared/robots present, BM_SharedRobot* time the published ANYmal C as shipped and fused
// by hand side by side (the goal: within 1.25x).
#include <benchmark/benchmark.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "skograph/model/dynamics.hpp"
#include "skograph/rigid/fixed_body_fusion.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace {

using namespace skograph;

const std::string kSource = SKOGRAPH_SOURCE_DIR;

void BM_LoadModel(benchmark::State& state, const std::string& file) {
  for (auto _ : state) {
    const Model model = load_model(file);
    benchmark::DoNotOptimize(model.dof_count());
  }
}

Link body(const std::string& name, double mass, const Eigen::Vector3d& com, double radius) {
  Link link;
  link.name = name;
  link.mass = mass;
  link.center_of_mass = com;
  const double moment = 0.4 * mass * radius * radius;
  link.inertia = Eigen::Vector3d(moment, 1.1 * moment, 0.9 * moment).asDiagonal();
  return link;
}

int add(Mechanism& m, const Link& link, int parent, JointType type, const Eigen::Vector3d& at,
        const Eigen::Vector3d& axis = Eigen::Vector3d::UnitX(), double yaw = 0.0) {
  m.links.push_back(link);
  Joint joint;
  joint.name = link.name + "_joint";
  joint.type = type;
  joint.parent = parent;
  joint.child = static_cast<int>(m.links.size()) - 1;
  joint.origin = Eigen::Translation3d(at) * Eigen::AngleAxisd(yaw, Eigen::Vector3d::UnitZ());
  joint.axis = axis;
  m.joints.push_back(joint);
  return joint.child;
}

// A floating 30 kg base with 24 bodies on fixed joints (cameras, IMU, hatches, handles, massless
// frames among them) and four legs HAA (x), HFE (y), KFE (y), each with 10 fixed bodies (covers,
// motor housings, the foot and massless foot frames): 13 moving bodies, 78 links.
Mechanism anymal_like() {
  Mechanism m;
  m.name = "anymal_like";
  const int base =
      add(m, body("base", 30.0, {0.0, 0.0, 0.05}, 0.3), -1, JointType::kFloating, {0, 0, 0.6});
  for (int k = 0; k < 24; ++k) {
    const double angle = 0.26 * k;
    const Eigen::Vector3d at(0.3 * std::cos(angle), 0.15 * std::sin(angle), 0.08 + 0.01 * (k % 3));
    add(m,
        body("base_part" + std::to_string(k), k % 4 == 0 ? 0.0 : 0.2 + 0.05 * (k % 5),
             {0.01, 0.0, 0.02}, 0.05),
        base, JointType::kFixed, at, Eigen::Vector3d::UnitX(), angle);
  }
  const char* legs[4] = {"LF", "RF", "LH", "RH"};
  for (int leg = 0; leg < 4; ++leg) {
    const double x = leg < 2 ? 0.3 : -0.3, y = leg % 2 == 0 ? 0.1 : -0.1;
    const std::string name = legs[leg];
    const int hip = add(m, body(name + "_HIP", 2.0, {0.05, 0, 0}, 0.08), base, JointType::kRevolute,
                        {x, y, 0}, Eigen::Vector3d::UnitX());
    const int thigh = add(m, body(name + "_THIGH", 2.0, {0, 0, -0.12}, 0.1), hip,
                          JointType::kRevolute, {0.06, y, 0}, Eigen::Vector3d::UnitY());
    const int shank = add(m, body(name + "_SHANK", 0.5, {0, 0, -0.14}, 0.06), thigh,
                          JointType::kRevolute, {0, 0.02, -0.28}, Eigen::Vector3d::UnitY());
    const int parents[3] = {hip, thigh, shank};
    for (int k = 0; k < 10; ++k) {
      const int parent = parents[k % 3];
      add(m,
          body(name + "_part" + std::to_string(k), k >= 8 ? 0.0 : 0.1 + 0.02 * k, {0, 0.01, -0.01},
               0.03),
          parent, JointType::kFixed, {0.01 * k, 0.0, -0.03 * k}, Eigen::Vector3d::UnitX(), 0.3 * k);
    }
  }
  return m;
}

struct Problem {
  explicit Problem(Mechanism mechanism) : model(std::move(mechanism)), data(model) {
    const int n = model.dof_count();
    q.resize(n);
    qd.resize(n);
    qdd.resize(n);
    tau.resize(n);
    for (int i = 0; i < n; ++i) {
      q(i) = 0.3 * std::sin(1.0 + i);
      qd(i) = 0.5 * std::cos(2.0 + i);
      qdd(i) = 0.2 * std::sin(3.0 + i);
      tau(i) = std::cos(4.0 + i);
    }
  }
  RigidBodyModel model;
  RigidBodyData data;
  Eigen::VectorXd q, qd, qdd, tau;
  const Eigen::Vector3d gravity = Eigen::Vector3d(0, 0, -9.81);
};

Mechanism anymal(bool fused) {
  return fused ? fuse_fixed_bodies(anymal_like()) : anymal_like();
}

void BM_AnymalLikeFd(benchmark::State& state) {
  Problem p(anymal(state.range(0) != 0));
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(p.model, p.data, p.q, p.qd, p.tau, p.gravity));
  state.SetLabel(std::to_string(p.model.node_count()) + " nodes");
}
void BM_AnymalLikeId(benchmark::State& state) {
  Problem p(anymal(state.range(0) != 0));
  for (auto _ : state)
    benchmark::DoNotOptimize(inverse_dynamics(p.model, p.data, p.q, p.qd, p.qdd, p.gravity));
  state.SetLabel(std::to_string(p.model.node_count()) + " nodes");
}
void BM_AnymalLikeMass(benchmark::State& state) {
  Problem p(anymal(state.range(0) != 0));
  for (auto _ : state) benchmark::DoNotOptimize(mass_matrix(p.model, p.data, p.q));
  state.SetLabel(std::to_string(p.model.node_count()) + " nodes");
}
BENCHMARK(BM_AnymalLikeFd)->Arg(0)->Arg(1);
BENCHMARK(BM_AnymalLikeId)->Arg(0)->Arg(1);
BENCHMARK(BM_AnymalLikeMass)->Arg(0)->Arg(1);

// A published robot file, loaded as the command line does (model/model.hpp).
void BM_SharedRobotFd(benchmark::State& state, const std::string& file) {
  Problem p(load_model(file).mechanism());
  for (auto _ : state)
    benchmark::DoNotOptimize(forward_dynamics(p.model, p.data, p.q, p.qd, p.tau, p.gravity));
}

// Benchmarks of files are registered when the files exist.
const bool kRegistered = [] {
  for (const char* example :
       {"arm7.urdf", "humanoid.yaml", "humanoid.xml", "fourbar.xml", "stewart_platform.yaml",
        "stewart_platform.xml", "delta_robot.xml", "fourbar_internal_cut.sdf"})
    benchmark::RegisterBenchmark((std::string("BM_LoadModel/") + example).c_str(), BM_LoadModel,
                                 kSource + "/examples/models/" + example);
  const std::string shared = kSource + "/../shared/robots/benchmark/";
  if (std::filesystem::exists(shared + "anymal_c_float.urdf")) {
    benchmark::RegisterBenchmark("BM_LoadModel/anymal_c_float.urdf", BM_LoadModel,
                                 shared + "anymal_c_float.urdf");
    benchmark::RegisterBenchmark("BM_SharedRobotFd/anymal_c_shipped", BM_SharedRobotFd,
                                 shared + "anymal_c_float.urdf");
    benchmark::RegisterBenchmark("BM_SharedRobotFd/anymal_c_fused_by_hand", BM_SharedRobotFd,
                                 shared + "fused/anymal_c_float.urdf");
  }
  return true;
}();

}  // namespace
