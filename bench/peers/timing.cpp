#include "peers.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>

namespace skograph::peers {
namespace {

using Clock = std::chrono::steady_clock;

void calibrate(Task& task) {
  for (;;) {
    const auto start = Clock::now();
    for (long i = 0; i < task.batch; ++i) task.call();
    if (std::chrono::duration<double>(Clock::now() - start).count() > 2e-3 ||
        task.batch > (1L << 26))
      return;
    task.batch *= 2;
  }
}

}  // namespace

double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + static_cast<long>(values.size() / 2),
                   values.end());
  return values[values.size() / 2];
}

void run_interleaved(std::vector<Task>& tasks, int rounds) {
  for (Task& task : tasks) calibrate(task);
  for (int round = 0; round < rounds; ++round)
    for (Task& task : tasks) {
      const auto start = Clock::now();
      for (long i = 0; i < task.batch; ++i) task.call();
      task.samples.push_back(
          std::chrono::duration<double, std::nano>(Clock::now() - start).count() /
          static_cast<double>(task.batch));
    }
}

double generic(int i, double scale, double phase) {
  return scale * std::sin(1.3 * i + phase);
}

double mass_difference(const Eigen::MatrixXd& a, const JointDofs& a_dofs, const Eigen::MatrixXd& b,
                       const JointDofs& b_dofs) {
  double worst = 0.0, scale = 1e-300;
  for (const auto& [row, i] : a_dofs)
    for (const auto& [column, j] : a_dofs) {
      const auto bi = b_dofs.find(row), bj = b_dofs.find(column);
      if (bi == b_dofs.end() || bj == b_dofs.end()) continue;
      worst = std::max(worst, std::abs(a(i, j) - b(bi->second, bj->second)));
      scale = std::max(scale, std::abs(a(i, j)));
    }
  return worst / scale;
}

}  // namespace skograph::peers
