// One error type per condition and the exit statuses of cli/commands.hpp: every
// skograph::Error is one line and exit status 2, anything else an internal failure with status 1;
// a singular mass matrix is SingularMassMatrixError on the tree path, the closed-chain path and
// the sparse factorization alike.
#include <gtest/gtest.h>

#include <fstream>
#include <new>
#include <sstream>
#include <stdexcept>
#include <string>

#include "skograph/cli/commands.hpp"
#include "skograph/graph/output_file.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/sparse_export.hpp"
#include "support/cli_support.hpp"

namespace skograph::cli {
namespace {

using cli_test::expect_one_line_error;
using cli_test::run_cli;

struct Reported {
  int status;
  std::string line;
};

// report_failure on `failure` thrown, for `skograph dynamics model.yaml`.
template <class Failure>
Reported reported(const Failure& failure) {
  std::ostringstream err;
  try {
    throw failure;
  } catch (...) {
    const int status = report_failure("dynamics", {"model.yaml", "--json"}, err);
    return {status, err.str()};
  }
}

TEST(ExitStatus, EverySkographErrorIsBadInputAndAnythingElseAnInternalFailure) {
  EXPECT_EQ(reported(InputError("state.json", 3, "not a number")).status, kExitBadInput);
  EXPECT_EQ(reported(InputError("state.json", 3, "not a number")).line,
            "skograph dynamics: state.json:3: not a number\n");
  EXPECT_EQ(reported(UsageError("unknown option '--x'")).line,
            "skograph dynamics: unknown option '--x'\n");
  EXPECT_EQ(reported(OutputError("out.mtx", "No space left on device")).status, kExitBadInput);
  // What the model meets at a state names the input file.
  const Reported closure = reported(ClosureError("loop 'pin' cannot be closed"));
  EXPECT_EQ(closure.status, kExitBadInput);
  EXPECT_EQ(closure.line, "skograph dynamics: model.yaml: loop 'pin' cannot be closed\n");
  EXPECT_EQ(reported(SingularConfigurationError("singular configuration")).status, kExitBadInput);
  EXPECT_EQ(reported(SingularMassMatrixError(0, "singular")).status, kExitBadInput);
  EXPECT_EQ(reported(OrderingUnavailable("no metis")).status, kExitBadInput);
  // Internal failures: status 1, still one line naming the input.
  const Reported broken = reported(std::logic_error("an index out of range"));
  EXPECT_EQ(broken.status, kExitInternalFailure);
  EXPECT_EQ(broken.line,
            "skograph dynamics: model.yaml: internal failure: an index out of range\n");
  EXPECT_EQ(reported(std::bad_alloc()).status, kExitInternalFailure);
  EXPECT_EQ(reported(std::invalid_argument("x")).status, kExitInternalFailure);
  EXPECT_EQ(reported(42).status, kExitInternalFailure);
}

// A bead on a hinge's axis (no inertia about it, mass off zero): M is singular there.
constexpr const char* kBead = R"(
  - {name: bead, mass: 0.5, com: [0, 0, 0.2], inertia: {ixx: 0, iyy: 0, izz: 0}}
)";
constexpr const char* kSpin = R"(
  - {name: spin, type: continuous, parent: world, child: bead, axis: [0, 0, 1],
     origin: {xyz: [1, 1, 0]}}
)";

std::string fourbar_with_a_bead() {
  std::ifstream in(cli_test::example_model("fourbar.yaml"));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  text.insert(text.find("joints:\n"), std::string(kBead).substr(1));
  text.insert(text.find("loops:\n"), std::string(kSpin).substr(1));
  return text;
}

TEST(ExitStatus, ASingularMassMatrixIsOneErrorOnEveryPath) {
  const auto dir = io_test::scratch_dir();
  const std::string tree = (dir / "bead.yaml").string();
  {
    std::ofstream out(tree);
    out << "links:" << kBead << "joints:" << kSpin;
  }
  const std::string closed = (dir / "fourbar_bead.yaml").string();
  {
    std::ofstream out(closed);
    out << fourbar_with_a_bead();
  }
  const Eigen::Vector3d gravity(0, 0, -9.81);
  // The library: the same type from the tree recursion, the closed-chain recursion (a node outside
  // every aggregate) and CHOLMOD.
  for (const std::string& file : {tree, closed}) {
    SCOPED_TRACE(file);
    const Model model = load_model(file);
    ModelData data(model);
    const Eigen::VectorXd zero = Eigen::VectorXd::Zero(model.dof_count());
    try {
      forward_dynamics(model, data, zero, zero, zero, gravity);
      ADD_FAILURE() << "no SingularMassMatrixError";
    } catch (const SingularMassMatrixError& e) {
      EXPECT_NE(std::string(e.what()).find("joint 'spin' moves no inertia"), std::string::npos)
          << e.what();
    }
  }
  const Model model = load_model(tree);
  ModelData data(model);
  const ModelSko sko = model_sko(model, data, Eigen::VectorXd::Zero(1), false);
  const SparseExport matrices(*sko.sko, {sko.hinge_rows, sko.node_rows});
  EXPECT_THROW(matrices.factorization(MassOrdering::kCanonical)->factorize(matrices.mass()),
               SingularMassMatrixError);
  // The program: one line, exit status 2, from dynamics and from export's factor.
  for (const std::string& file : {tree, closed})
    expect_one_line_error(run_cli("dynamics " + file), "joint 'spin' moves no inertia");
  expect_one_line_error(run_cli("export " + tree + " --mass " + (dir / "M.mtx").string() +
                                " --factor " + (dir / "L.mtx").string()),
                        "the mass matrix is not positive definite");
}

// Sizes are capped below what the machine holds: an aggregate of more links than constraint
// embedding takes (its dense blocks grow as the square) is refused at load, not met by bad_alloc.
TEST(ExitStatus, AnAggregateTooLargeToEmbedIsRefusedInOneLine) {
  std::ostringstream text;
  text << "links:\n";
  const int links = kMaxAggregateLinks + 1;
  for (int k = 0; k < links; ++k)
    text << "  - {name: l" << k << ", mass: 1, com: [0.05, 0, 0], inertia: {ixx: 0.001, iyy: "
         << "0.001, izz: 0.001}}\n";
  text << "joints:\n";
  for (int k = 0; k < links; ++k)
    text << "  - {name: j" << k << ", type: revolute, parent: " << (k == 0 ? "world" : "l")
         << (k == 0 ? "" : std::to_string(k - 1)) << ", child: l" << k
         << ", axis: [0, 0, 1], origin: {xyz: [0.1, 0, 0]}}\n";
  text << "loops:\n  - {name: ring, type: revolute, parent: world, child: l" << links - 1
       << ", axis: [0, 0, 1]}\n";
  const std::string file = (io_test::scratch_dir() / "ring.yaml").string();
  {
    std::ofstream out(file);
    out << text.str();
  }
  expect_one_line_error(run_cli("dynamics " + file),
                        "loop 'ring' joins 1001 links into one aggregate, more than the 1000");
  EXPECT_THROW(load_model(file), InputError);
}

}  // namespace
}  // namespace skograph::cli
