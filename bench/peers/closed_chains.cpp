// Closed chains (bench/peers/main.cpp): forward dynamics per call of the same MJCF mechanisms in
// skograph (exact constraint embedding, rigid/closed_chain_model.hpp) and MuJoCo (soft equality
// constraints).
//
// What is timed:
//   skograph  forward_dynamics of ClosedChainModel (kinematics, constraints, the embedding X and
//             Xdot qd_R, the articulated-body recursion with each aggregate through its member
//             tree), on the file as the command line loads it (io/mjcf_reader: a <connect> is a
//             spherical loop joint)
//   multipliers  forward_dynamics_by_multipliers (rigid/multiplier_dynamics.hpp): G, M and C,
//             M's tree factorization, G M^-1 G* and its Cholesky factor, on the same model
//   MuJoCo    mj_forward with equality constraints on and contacts, joint limits, friction loss and
//             passive forces off, its default solver; each call is warm-started by the previous
//             one at the same state (mj_fwdConstraint keeps qacc_warmstart), MuJoCo's most
//             favourable case
// The state: q = qpos0 (both libraries take it as assembled), generic joint rates made
// consistent by close_velocities and given to MuJoCo joint by joint (a ball's rates are its
// body-frame angular velocity in both), generic joint forces. Before timing, the tree mass
// matrices are compared over the 1-dof joints, and the accelerations: MuJoCo's differ from the
// exact ones by its constraints' softness.
#include <mujoco/mujoco.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "peers.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/multiplier_dynamics.hpp"

namespace skograph::peers {
namespace {

struct ClosedSide {
  explicit ClosedSide(const ClosedCase& mechanism)
      : loaded(load(mechanism)), model(*loaded.closed_chain()), data(model) {
    const RigidBodyModel& tree = model.tree();
    const int n = model.dof_count();
    q.setZero(n);
    qd.setZero(n);
    tau.setZero(n);
    for (int j = 0; j < tree.joint_count(); ++j) {
      const std::string& name = tree.mechanism().joints[j].name;
      const int seed = static_cast<int>(std::hash<std::string>{}(name) % 97);
      for (int d = 0; d < tree.joint_dofs(j); ++d) {
        const int i = tree.joint_dof_offset(j) + d;
        qd(i) = generic(seed + d, 0.8, 1.2);
        tau(i) = generic(seed + d, 2.0, 3.4);
      }
      if (tree.joint_dofs(j) > 0) dofs[name] = tree.joint_dof_offset(j);
    }
    // An MJCF file is closed at qpos0 up to its printed digits; a parallel robot is assembled
    // from the zero state, as every command does.
    if (mechanism.loops_file.empty())
      close_positions(model, data, q);
    else
      assemble(model, data, q);
    close_velocities(model, data, q, qd);
  }
  static Model load(const ClosedCase& mechanism) {
    ReadOptions options;
    options.loops_file = mechanism.loops_file;
    return load_model(mechanism.path, options);
  }
  Model loaded;  // through the library's loading path (model/model.hpp)
  const ClosedChainModel& model;
  ClosedChainData data;
  Eigen::VectorXd q, qd, tau;
  JointDofs dofs;  // joint name -> its first dof
  const Eigen::Vector3d gravity = Eigen::Vector3d(0, 0, -9.81);
};

struct MujocoClosedSide {
  MujocoClosedSide(const std::string& path, const ClosedSide& reference) {
    if (path.empty()) return;  // no twin (mujoco_file names why)
    char error[1024] = "";
    model = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
    if (!model) {
      failure = error;
      return;
    }
    model->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_LIMIT | mjDSBL_FRICTIONLOSS | mjDSBL_PASSIVE;
    data = mj_makeData(model);
    dense.setZero(model->nv, model->nv);
    // qpos = qpos0 (mj_makeData); the reference's rates and forces joint by joint.
    for (const auto& [name, offset] : reference.dofs) {
      const int id = mj_name2id(model, mjOBJ_JOINT, name.c_str());
      const int type = id >= 0 ? model->jnt_type[id] : -1;
      const int nv = type == mjJNT_BALL ? 3 : type == mjJNT_HINGE || type == mjJNT_SLIDE ? 1 : 0;
      if (nv == 0) {
        failure = "joint '" + name + "' has no MuJoCo hinge, slide or ball of that name";
        return;
      }
      dofs[name] = model->jnt_dofadr[id];
      for (int d = 0; d < nv; ++d) {
        data->qvel[model->jnt_dofadr[id] + d] = reference.qd(offset + d);
        data->qfrc_applied[model->jnt_dofadr[id] + d] = reference.tau(offset + d);
      }
    }
    mj_forward(model, data);
    mj_fullM(model, dense.data(), data->qM);
    solver_iterations = data->solver_iter;
    for (int row = 0; row < data->nefc; ++row)
      if (data->efc_type[row] == mjCNSTR_EQUALITY)
        closure_error = std::max(closure_error, std::abs(data->efc_pos[row]));
  }
  ~MujocoClosedSide() {
    if (data) mj_deleteData(data);
    if (model) mj_deleteModel(model);
  }
  MujocoClosedSide(const MujocoClosedSide&) = delete;
  MujocoClosedSide& operator=(const MujocoClosedSide&) = delete;
  mjModel* model = nullptr;
  mjData* data = nullptr;
  std::string failure;
  double closure_error = 0.0;  // largest equality violation at the starting state
  int solver_iterations = 0;   // of MuJoCo's constraint solver at the timed state, first call
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense;
  JointDofs dofs;
};

struct ClosedRow {
  std::string mechanism;
  int dofs = 0, independent = 0;
  double skograph = 0.0, multipliers = 0.0, mujoco = 0.0;  // us per call; 0 = none
};

// The file MuJoCo reads: the MJCF file itself, or the twin of a parallel robot written in its
// assembled configuration to the temporary directory (mjcf_twin.cpp).
std::string mujoco_file(const ClosedCase& mechanism, const ClosedSide& sk, std::string& failure) {
  if (mechanism.loops_file.empty()) return mechanism.path;
  try {
    const std::filesystem::path twin =
        std::filesystem::temp_directory_path() / ("skograph_peers_" + mechanism.label + ".xml");
    std::ofstream(twin) << mjcf_twin(sk.model, sk.q);
    return twin.string();
  } catch (const std::exception& e) {
    failure = e.what();
    return {};
  }
}

ClosedRow bench_mechanism(const ClosedCase& mechanism, int rounds) {
  ClosedRow row;
  row.mechanism = mechanism.label;
  ClosedSide sk(mechanism);
  row.dofs = sk.model.dof_count();
  forward_dynamics(sk.model, sk.data, sk.q, sk.qd, sk.tau, sk.gravity);
  row.independent = static_cast<int>(sk.data.independent.size());
  std::string twin_failure;
  const std::string path = mujoco_file(mechanism, sk, twin_failure);
  MujocoClosedSide mj(path, sk);
  if (!twin_failure.empty()) mj.failure = twin_failure;
  if (!mj.failure.empty())
    std::fprintf(stderr, "%s: not timed in MuJoCo: %s\n", row.mechanism.c_str(),
                 mj.failure.c_str());
  double sink = 0.0;
  std::vector<Task> tasks;
  tasks.push_back({"skograph", [&] {
                     sink +=
                         forward_dynamics(sk.model, sk.data, sk.q, sk.qd, sk.tau, sk.gravity)(0);
                   }});
  // The multiplier method on its own data (the two do not share a workspace), when M allows it.
  ClosedChainData multiplier_data(sk.model);
  MultiplierWorkspace multiplier_work(sk.model);
  bool multipliers = true;
  try {
    const Eigen::VectorXd& by_multipliers = forward_dynamics_by_multipliers(
        sk.model, multiplier_data, multiplier_work, sk.q, sk.qd, sk.tau, sk.gravity);
    const Eigen::VectorXd embedded =
        forward_dynamics(sk.model, sk.data, sk.q, sk.qd, sk.tau, sk.gravity);
    std::printf("  %-28s multipliers vs embedding: %.1e relative\n", row.mechanism.c_str(),
                (by_multipliers - embedded).cwiseAbs().maxCoeff() /
                    std::max(1.0, embedded.cwiseAbs().maxCoeff()));
  } catch (const Error& e) {
    std::fprintf(stderr, "%s: no multiplier method: %s\n", row.mechanism.c_str(), e.what());
    multipliers = false;
  }
  if (multipliers)
    tasks.push_back({"multipliers", [&] {
                       sink += forward_dynamics_by_multipliers(sk.model, multiplier_data,
                                                               multiplier_work, sk.q, sk.qd, sk.tau,
                                                               sk.gravity)(0);
                     }});
  const std::size_t mujoco_task = tasks.size();
  if (mj.failure.empty()) {
    RigidBodyData tree_data(sk.model.tree());
    const Eigen::MatrixXd tree_mass = mass_matrix(sk.model.tree(), tree_data, sk.q);
    // Accelerations at rest with MuJoCo's constraints made nearly hard (impedance 0.9999 instead
    // of the default 0.9..0.95): its reference acceleration -b J qd - k r has no Jdot qd term, so
    // only at rest do the two solve the same equations; the soft default differs by the softness.
    // A twin is compared under gravity alone: on the parallel robots' nearly massless links
    // (1e-9 kg in their files) the generic forces give accelerations of 1e10, which the twin's
    // mass bounds change.
    const bool twin = !mechanism.loops_file.empty();
    const Eigen::VectorXd rest = Eigen::VectorXd::Zero(sk.model.dof_count());
    const Eigen::VectorXd qdd_rest =
        forward_dynamics(sk.model, sk.data, sk.q, rest, twin ? rest : sk.tau, sk.gravity);
    std::vector<mjtNum> solimp(mj.model->eq_solimp, mj.model->eq_solimp + mjNIMP * mj.model->neq);
    std::vector<mjtNum> qvel(mj.data->qvel, mj.data->qvel + mj.model->nv);
    std::vector<mjtNum> forces(mj.data->qfrc_applied, mj.data->qfrc_applied + mj.model->nv);
    std::fill(mj.data->qvel, mj.data->qvel + mj.model->nv, 0.0);
    if (twin) std::fill(mj.data->qfrc_applied, mj.data->qfrc_applied + mj.model->nv, 0.0);
    const auto difference = [&] {
      mj_forward(mj.model, mj.data);
      double worst = 0.0, scale = 1e-300;
      for (const auto& [name, i] : sk.dofs) {
        worst = std::max(worst, std::abs(qdd_rest(i) - mj.data->qacc[mj.dofs.at(name)]));
        scale = std::max(scale, std::abs(qdd_rest(i)));
      }
      return worst / scale;
    };
    const double soft = difference();
    for (int e = 0; e < mj.model->neq; ++e)
      mj.model->eq_solimp[mjNIMP * e] = mj.model->eq_solimp[mjNIMP * e + 1] = 0.9999;
    const double hard = difference();
    std::copy(solimp.begin(), solimp.end(), mj.model->eq_solimp);
    std::copy(qvel.begin(), qvel.end(), mj.data->qvel);
    std::copy(forces.begin(), forces.end(), mj.data->qfrc_applied);
    mj_forward(mj.model, mj.data);
    std::printf(
        "  %-28s tree mass matrix vs MuJoCo: %.1e relative; accelerations at rest%s: %.1e "
        "relative with MuJoCo's constraints nearly hard (%.1e soft); MuJoCo's loop error %.1e, "
        "solver iterations %d\n",
        row.mechanism.c_str(), mass_difference(tree_mass, sk.dofs, mj.dense, mj.dofs),
        twin ? " under gravity" : "", hard, soft, mj.closure_error, mj.solver_iterations);
    mjModel* m = mj.model;
    mjData* d = mj.data;
    tasks.push_back({"mujoco", [&, m, d] {
                       mj_forward(m, d);
                       sink += d->qacc[0];
                     }});
  }
  run_interleaved(tasks, rounds);
  row.skograph = median(tasks[0].samples) * 1e-3;
  if (multipliers) row.multipliers = median(tasks[1].samples) * 1e-3;
  if (tasks.size() > mujoco_task) row.mujoco = median(tasks[mujoco_task].samples) * 1e-3;
  if (!std::isfinite(sink)) std::fprintf(stderr, "%s: non-finite results\n", row.mechanism.c_str());
  return row;
}

}  // namespace

// The chain of `count` planar four-bars of examples/models/fourbar_chain.xml (each hangs from the
// previous one's rocker and is closed by a <connect> at its coupler-rocker pin), in MJCF.
std::string four_bar_chain_mjcf(int count) {
  std::ostringstream xml;
  xml << "<mujoco model=\"fourbar_chain" << count << "\">\n"
      << "  <compiler angle=\"radian\" eulerseq=\"XYZ\"/>\n"
      << "  <default><joint type=\"hinge\" axis=\"0 0 1\"/></default>\n  <worldbody>\n";
  const auto link = [&](const std::string& name, const char* pose, const char* inertial) {
    xml << "<body name=\"" << name << "\" " << pose << "><joint name=\"" << name
        << "_joint\"/><inertial " << inertial << "/>";
  };
  const char* crank = "pos=\"0.05 0 0\" mass=\"0.3\" diaginertia=\"2e-05 0.00026 0.00026\"";
  const char* coupler = "pos=\"0.2 0 0\" mass=\"0.8\" diaginertia=\"5e-05 0.0107 0.0107\"";
  const char* rocker = "pos=\"0.15 0 0\" mass=\"0.6\" diaginertia=\"4e-05 0.0045 0.0045\"";
  for (int k = 1; k <= count; ++k) {
    const std::string n = std::to_string(k);
    link("crank" + n,
         k == 1 ? "pos=\"0 0 1\" euler=\"0.785398163397448 -1.570796326794897 0.785398163397448\""
                : "pos=\"0.15 0 0\" euler=\"0 0 -0.011925360639358\"",
         crank);
    link("coupler" + n, "pos=\"0.1 0 0\" euler=\"0 0 -1.04725912993861\"", coupler);
    xml << "</body></body>\n";
    link("rocker" + n,
         k == 1 ? "pos=\"0.35 0 1\" euler=\"-1.570796326794891 -1.558870966155538 "
                  "3.141592653589788\""
                : "pos=\"0.145826222706284 -0.349975112805329 0\"",
         rocker);
    xml << "\n";
  }
  for (int k = 1; k <= count; ++k) xml << "</body>";
  xml << "\n  </worldbody>\n  <equality>\n";
  for (int k = 1; k <= count; ++k)
    xml << "    <connect name=\"pin" << k << "\" body1=\"coupler" << k << "\" body2=\"rocker" << k
        << "\" anchor=\"0.4 0 0\"/>\n";
  xml << "  </equality>\n</mujoco>\n";
  return xml.str();
}

void bench_closed_chains(const std::vector<ClosedCase>& mechanisms, int rounds) {
  std::vector<ClosedRow> rows;
  for (const ClosedCase& mechanism : mechanisms) {
    try {
      rows.push_back(bench_mechanism(mechanism, rounds));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s: not timed: %s\n", mechanism.label.c_str(), e.what());
    }
  }
  std::printf(
      "\nclosed chains, forward dynamics (us per call; MuJoCo's ratio to embedding)\n| mechanism | "
      "dofs | independent | skograph embedding | skograph multipliers | MuJoCo |\n"
      "|---|---:|---:|---:|---:|---:|\n");
  for (const ClosedRow& row : rows) {
    std::printf("| %s | %d | %d | %.2f |", row.mechanism.c_str(), row.dofs, row.independent,
                row.skograph);
    if (row.multipliers > 0)
      std::printf(" %.2f |", row.multipliers);
    else
      std::printf(" - |");
    if (row.mujoco > 0)
      std::printf(" %.2f (%.2f) |\n", row.mujoco, row.mujoco / row.skograph);
    else
      std::printf(" - |\n");
  }
}

}  // namespace skograph::peers
