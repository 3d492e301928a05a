// The peers benchmark's shared pieces (bench/peers/): interleaved timing (every task runs once per
// round, so that a slow spell of this noisy machine hits all libraries alike; the figure is the
// median), the generic state, and comparisons by joint name across libraries.
#pragma once

#include <Eigen/Core>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace skograph {
class ClosedChainModel;
}

namespace skograph::peers {

// One timed call; samples are ns per call, one per round.
struct Task {
  std::string name;
  std::function<void()> call;
  long batch = 1;
  std::vector<double> samples;
};

// Calibrates each task's batch to about 2 ms, then runs `rounds` interleaved rounds.
void run_interleaved(std::vector<Task>& tasks, int rounds);

double median(std::vector<double> values);

// A smooth generic value for dof i (the same state in every library, joint by joint).
double generic(int i, double scale, double phase);

// Joint name -> dof index of the 1-dof joints (or of every joint's first dof), per library.
using JointDofs = std::map<std::string, int>;

// max |a(i, j) - b(i', j')| / max |a| over the joints both name (i, i' the same joint).
double mass_difference(const Eigen::MatrixXd& a, const JointDofs& a_dofs, const Eigen::MatrixXd& b,
                       const JointDofs& b_dofs);

// A closed mechanism of the benchmark: an MJCF file (MuJoCo reads the same file), or a parallel
// robot's URDF with its loop file (assembled from the zero state; MuJoCo reads its twin).
struct ClosedCase {
  std::string label;       // the row's name
  std::string path;        // the model file
  std::string loops_file;  // a parallel robot's robot.yaml, else empty
};

// Sections of the benchmark (robots.cpp, closed_chains.cpp, batches.cpp): each prints its tables.
void bench_robots(const std::vector<std::string>& files, int rounds);
void bench_closed_chains(const std::vector<ClosedCase>& mechanisms, int rounds);
// Batches of states of the robots (batches.cpp): skograph's batch calls beside MuJoCo's loop.
void bench_batches(const std::vector<std::string>& files, int rounds);

// MJCF text of a closed-chain model written in the closed configuration q (mjcf_twin.cpp); throws
// Error for what MuJoCo cannot express (planar and floating joints, prismatic loops,
// differentials).
std::string mjcf_twin(const ClosedChainModel& model, const Eigen::VectorXd& q);

// MJCF text of a chain of `count` planar four-bars (closed_chains.cpp).
std::string four_bar_chain_mjcf(int count);

}  // namespace skograph::peers
