// A call is a function of its arguments: the model's calls (model/model.hpp) on closed chains give
// the same numbers, bit for bit, on a fresh workspace, on one that has served any other calls in
// any order, and on several threads sharing the model (one ModelData each). The published
// parallel robots of ../shared/robots/example-parallel-robots (the 15 that close from the zero
// state, and the two kangaroos, which fail with the same message every time) and the closed-chain
// examples, from the zero state and from random starts: assembly, close_state, forward dynamics
// and the kinematics of every link. Under ThreadSanitizer (`make sanitize-thread`) the counts are
// reduced (5 robots, 4 threads, 10 repeats).
#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "skograph/model/dynamics.hpp"
#include "skograph/model/kinematics.hpp"
#include "support/source_paths.hpp"

// Under ThreadSanitizer fewer robots and repeats; under AddressSanitizer fewer repeats.
#if defined(__SANITIZE_THREAD__)
#define SKOGRAPH_UNDER_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SKOGRAPH_UNDER_TSAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define SKOGRAPH_UNDER_ASAN 1
#endif

namespace skograph {
namespace {

namespace fs = std::filesystem;

#if defined(SKOGRAPH_UNDER_TSAN) || defined(SKOGRAPH_UNDER_ASAN)
constexpr int kRepeats = 10;
#else
constexpr int kRepeats = 100;
#endif
constexpr int kThreads = 4;

using skograph::testing_support::kExamples;
using skograph::testing_support::kParallelRobots;

// What the calls give at one start: each result, or the error's message.
struct Outcome {
  std::string error;
  Eigen::VectorXd assembled, closed_q, closed_qd, qdd;
  std::vector<std::string> independent, moved;
  std::vector<Eigen::Matrix4d> poses;
};

// Bit for bit (NaN never appears: the calls refuse it).
bool same(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b) {
  return a.rows() == b.rows() && a.cols() == b.cols() && (a.array() == b.array()).all();
}

// One of the calls (`which` in 0..3) at `start`, its result written into `outcome`.
void call(const Model& model, ModelData& data, int which, const Eigen::VectorXd& start,
          const Eigen::VectorXd& rates, const Eigen::VectorXd& tau, Outcome& outcome) {
  try {
    switch (which) {
      case 0: {
        outcome.assembled = assemble_positions(model, data, start);
        outcome.moved.clear();
        for (const ModelData::Moved& m : data.moved) outcome.moved.push_back(m.dof);
        break;
      }
      case 1: {
        const ClosedState closed = close_state(model, data, start, rates);
        outcome.closed_q = closed.q;
        outcome.closed_qd = closed.qd;
        outcome.independent = data.independent;
        break;
      }
      case 2:
        outcome.qdd = forward_dynamics(model, data, start, rates, tau);
        break;
      default: {
        const std::vector<std::string> frames = frame_names(model);
        const std::vector<FrameMotion> motions =
            frame_motions(model, data, start, rates, Eigen::VectorXd::Zero(start.size()), frames,
                          FrameAxes::kWorld);
        outcome.poses.clear();
        for (const FrameMotion& m : motions) outcome.poses.push_back(m.pose.matrix());
      }
    }
  } catch (const Error& e) {
    outcome.error = e.what();
  }
}

void expect_same(const Outcome& reference, const Outcome& got, int which,
                 const std::string& where) {
  SCOPED_TRACE(where + ", call " + std::to_string(which));
  if (!reference.error.empty() || !got.error.empty()) {
    EXPECT_EQ(got.error, reference.error);
    return;
  }
  switch (which) {
    case 0:
      EXPECT_TRUE(same(got.assembled, reference.assembled));
      EXPECT_EQ(got.moved, reference.moved);
      break;
    case 1:
      EXPECT_TRUE(same(got.closed_q, reference.closed_q));
      EXPECT_TRUE(same(got.closed_qd, reference.closed_qd));
      EXPECT_EQ(got.independent, reference.independent);
      break;
    case 2:
      EXPECT_TRUE(same(got.qdd, reference.qdd));
      break;
    default:
      ASSERT_EQ(got.poses.size(), reference.poses.size());
      for (std::size_t i = 0; i < got.poses.size(); ++i)
        EXPECT_TRUE(same(got.poses[i], reference.poses[i])) << "frame " << i;
  }
}

struct DeterminismCase {
  std::string name;
  fs::path file, loops;
};

Model load(const DeterminismCase& c) {
  ReadOptions options;
  if (!c.loops.empty()) options.loops_file = c.loops.string();
  return load_model(c.file.string(), options);
}

class Determinism : public testing::TestWithParam<DeterminismCase> {};

TEST_P(Determinism, EveryCallIsAFunctionOfItsArguments) {
  const DeterminismCase c = GetParam();
  if (!fs::exists(c.file)) GTEST_SKIP() << "no " << c.file;
  const Model model = load(c);
  ASSERT_TRUE(model.is_closed_chain());
  const int n = model.dof_count();
  std::mt19937 rng(20261201u);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<Eigen::VectorXd> starts{Eigen::VectorXd::Zero(n)};
  for (int k = 0; k < 2; ++k) {
    Eigen::VectorXd q(n);
    for (int i = 0; i < n; ++i) q[i] = 0.15 * normal(rng);
    starts.push_back(q);
  }
  Eigen::VectorXd rates(n), tau(n);
  for (int i = 0; i < n; ++i) {
    rates[i] = 0.3 * normal(rng);
    tau[i] = 0.1 * normal(rng);
  }
  // The reference: every call on a workspace of its own, never used before.
  std::vector<std::vector<Outcome>> reference(starts.size(), std::vector<Outcome>(4));
  for (std::size_t s = 0; s < starts.size(); ++s)
    for (int which = 0; which < 4; ++which) {
      ModelData fresh(model);
      call(model, fresh, which, starts[s], rates, tau, reference[s][which]);
    }
  // One workspace, the calls interleaved in a shuffled order.
  const auto interleaved = [&](unsigned seed, int repeats) {
    std::mt19937 order(seed);
    ModelData data(model);
    std::vector<std::pair<std::size_t, int>> calls;
    for (std::size_t s = 0; s < starts.size(); ++s)
      for (int which = 0; which < 4; ++which) calls.emplace_back(s, which);
    for (int repeat = 0; repeat < repeats; ++repeat) {
      std::shuffle(calls.begin(), calls.end(), order);
      // An assembly from one of the starts every repeat, and two other calls in a shuffled
      // order: every order comes up over the repeats, at a bounded cost.
      calls.insert(calls.begin(), {static_cast<std::size_t>(repeat) % starts.size(), 0});
      for (std::size_t k = 0; k < 3; ++k) {
        const auto [s, which] = calls[k];
        Outcome got;
        call(model, data, which, starts[s], rates, tau, got);
        expect_same(reference[s][which], got, which,
                    "start " + std::to_string(s) + ", repeat " + std::to_string(repeat));
        if (testing::Test::HasFailure()) return;
      }
      calls.erase(calls.begin());
    }
  };
  interleaved(1u, kRepeats);
  // The same on threads sharing the model, each with its workspace.
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(interleaved, 100u + static_cast<unsigned>(t), kRepeats / 4 + 1);
  for (std::thread& thread : threads) thread.join();
}

std::vector<DeterminismCase> cases() {
  std::vector<DeterminismCase> result;
#ifdef SKOGRAPH_UNDER_TSAN
  const std::vector<std::string> robots{"5bar_linkage", "cassie_like", "robot_delta", "talos_like",
                                        "kangaroo_like"};
#else
  const std::vector<std::string> robots{"5bar_linkage",
                                        "5bar_linkage_iso3d",
                                        "5bar_linkage_iso6d",
                                        "battobot_6d",
                                        "cassie_like",
                                        "digit_like",
                                        "digit_like_2legs",
                                        "digit_like_2legs_6D",
                                        "digit_like_2legs_old",
                                        "disney_like",
                                        "disney_robot",
                                        "kangaroo_like",
                                        "kangaroo_like_2legs",
                                        "robot_delta",
                                        "talos_like",
                                        "true_talos_2_legs",
                                        "wl16_like"};
#endif
  for (const std::string& robot : robots)
    result.push_back({robot,
                      kParallelRobots / robot /
                          (robot == "true_talos_2_legs" ? "talos_full_v2.urdf" : "robot.urdf"),
                      kParallelRobots / robot / "robot.yaml"});
#ifndef SKOGRAPH_UNDER_TSAN
  for (const std::string example :
       {"fourbar.yaml", "delta_robot.xml", "delta_robot_redundant.xml", "stewart_platform.yaml",
        "fourbar_chain.yaml", "differential.yaml", "geared_links.yaml", "suspension.yaml"}) {
    std::string name = example;
    for (char& ch : name)
      if (ch == '.') ch = '_';
    result.push_back({name, kExamples / example, {}});
  }
#endif
  return result;
}

INSTANTIATE_TEST_SUITE_P(ClosedChains, Determinism, testing::ValuesIn(cases()),
                         [](const testing::TestParamInfo<DeterminismCase>& param) {
                           return param.param.name;
                         });

}  // namespace
}  // namespace skograph
