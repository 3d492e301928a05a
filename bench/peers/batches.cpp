// Batches of states (bench/peers/main.cpp): skograph's batch calls (model/batch.hpp: a tree's
// forward and inverse dynamics and mass matrix in SIMD lanes; one thread) beside MuJoCo's one state
// per call in a loop over the same number of states, on one core.
//
// What is timed, per state of a batch of kStates distinct states (q, qd, qdd, tau about the
// generic state, every 1-dof coordinate moved):
//   skograph  inverse_dynamics_batch, mass_matrix_batch, forward_dynamics_batch (threads 1, the
//             instruction set SKOGRAPH_SIMD or the CPU's widest), results in the file's order
//   MuJoCo    per state: qpos, qvel, qacc (or qfrc_applied) copied in, then mj_kinematics,
//             mj_comPos, mj_comVel and mj_rne; mj_kinematics, mj_comPos, mj_crb and mj_fullM;
//             mj_forward (contacts, constraints and passive forces disabled), as robots.cpp
#include <mujoco/mujoco.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "peers.hpp"
#include "skograph/model/batch.hpp"

namespace skograph::peers {
namespace {

constexpr long kStates = 256;

struct BatchRow {
  std::string robot;
  int dofs = 0;
  std::string simd;
  double time[3][2] = {};  // [id, mass, fd][skograph, MuJoCo], us per state; 0 = none
};

BatchRow bench_batch(const std::string& path, int rounds) {
  BatchRow row;
  row.robot = std::filesystem::path(path).filename().string();
  const Model model = load_model(path);
  const int n = model.dof_count();
  row.dofs = n;
  row.simd = simd_name(batch_lanes_simd(model, Simd::kAuto));
  std::mt19937 random(17);
  std::uniform_real_distribution<double> unit(-1.0, 1.0);
  StateRows q(kStates, n), qd(kStates, n), qdd(kStates, n), tau(kStates, n);
  for (long s = 0; s < kStates; ++s)
    for (int i = 0; i < n; ++i) {
      q(s, i) = generic(i, 0.4, 0.1) + 0.2 * unit(random);
      qd(s, i) = generic(i, 0.8, 1.2) + 0.2 * unit(random);
      qdd(s, i) = generic(i, 1.0, 2.3) + 0.2 * unit(random);
      tau(s, i) = generic(i, 2.0, 3.4) + 0.2 * unit(random);
    }
  WorkspacePool workspaces(model);
  StateRows out;
  double sink = 0.0;
  std::vector<Task> tasks;
  tasks.push_back({"sk id", [&] {
                     inverse_dynamics_batch(model, workspaces, q, qd, qdd, out);
                     sink += out(0, 0);
                   }});
  tasks.push_back({"sk mass", [&] {
                     mass_matrix_batch(model, workspaces, q, out);
                     sink += out(0, 0);
                   }});
  tasks.push_back({"sk fd", [&] {
                     forward_dynamics_batch(model, workspaces, q, qd, tau, out);
                     sink += out(0, 0);
                   }});
  char error[1024] = "";
  mjModel* m = mj_loadXML(path.c_str(), nullptr, error, sizeof error);
  mjData* d = m ? mj_makeData(m) : nullptr;
  std::vector<double> qpos, qvel, qacc;
  Eigen::VectorXd result;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> dense;
  if (m) {
    m->opt.disableflags |= mjDSBL_CONTACT | mjDSBL_CONSTRAINT | mjDSBL_PASSIVE;
    result.resize(m->nv);
    dense.resize(m->nv, m->nv);
    // Per state: qpos0 with every hinge and slide moved, rates about the generic ones.
    for (long s = 0; s < kStates; ++s) {
      for (int i = 0; i < m->nq; ++i) qpos.push_back(m->qpos0[i]);
      for (int j = 0; j < m->njnt; ++j)
        if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE)
          qpos[static_cast<std::size_t>(s * m->nq + m->jnt_qposadr[j])] +=
              generic(j, 0.4, 0.1) + 0.2 * unit(random);
      for (int i = 0; i < m->nv; ++i) {
        qvel.push_back(generic(i, 0.8, 1.2) + 0.2 * unit(random));
        qacc.push_back(generic(i, 1.0, 2.3) + 0.2 * unit(random));
      }
    }
    const auto set_state = [&, m, d](long s) {
      mju_copy(d->qpos, &qpos[static_cast<std::size_t>(s * m->nq)], m->nq);
      mju_copy(d->qvel, &qvel[static_cast<std::size_t>(s * m->nv)], m->nv);
      mju_copy(d->qacc, &qacc[static_cast<std::size_t>(s * m->nv)], m->nv);
    };
    tasks.push_back({"mj id", [&, m, d, set_state] {
                       for (long s = 0; s < kStates; ++s) {
                         set_state(s);
                         mj_kinematics(m, d);
                         mj_comPos(m, d);
                         mj_comVel(m, d);
                         mj_rne(m, d, 1, result.data());
                         sink += result(0);
                       }
                     }});
    tasks.push_back({"mj mass", [&, m, d, set_state] {
                       for (long s = 0; s < kStates; ++s) {
                         set_state(s);
                         mj_kinematics(m, d);
                         mj_comPos(m, d);
                         mj_crb(m, d);
                         mj_fullM(m, dense.data(), d->qM);
                         sink += dense(0, 0);
                       }
                     }});
    tasks.push_back({"mj fd", [&, m, d, set_state] {
                       for (long s = 0; s < kStates; ++s) {
                         set_state(s);
                         mju_copy(d->qfrc_applied, d->qacc, m->nv);  // a generic force
                         mj_forward(m, d);
                         sink += d->qacc[0];
                       }
                     }});
  } else {
    std::fprintf(stderr, "%s: MuJoCo cannot load it: %s\n", row.robot.c_str(), error);
  }
  run_interleaved(tasks, rounds);
  for (const Task& task : tasks) {
    const int library = task.name.rfind("sk", 0) == 0 ? 0 : 1;
    const int algo = task.name.ends_with("id") ? 0 : task.name.ends_with("mass") ? 1 : 2;
    row.time[algo][library] = median(task.samples) * 1e-3 / static_cast<double>(kStates);
  }
  if (d) mj_deleteData(d);
  if (m) mj_deleteModel(m);
  if (!std::isfinite(sink)) std::fprintf(stderr, "%s: non-finite results\n", row.robot.c_str());
  return row;
}

}  // namespace

void bench_batches(const std::vector<std::string>& files, int rounds) {
  std::vector<BatchRow> rows;
  for (const std::string& file : files) rows.push_back(bench_batch(file, rounds));
  const char* const algos[3] = {"inverse dynamics", "mass matrix", "forward dynamics"};
  for (int a = 0; a < 3; ++a) {
    std::printf(
        "\nbatches of %ld states, one thread, us per state: %s\n| robot | dofs | skograph "
        "(lanes) | MuJoCo, one state per call |\n|---|---:|---:|---:|\n",
        kStates, algos[a]);
    for (const BatchRow& row : rows) {
      std::printf("| %s | %d | %.3f (%s) |", row.robot.c_str(), row.dofs, row.time[a][0],
                  row.simd.c_str());
      if (row.time[a][1] > 0)
        std::printf(" %.3f (%.2f) |\n", row.time[a][1], row.time[a][1] / row.time[a][0]);
      else
        std::printf(" - |\n");
    }
  }
}

}  // namespace skograph::peers
