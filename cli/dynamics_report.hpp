// What `skograph dynamics` shares between its tree and closed-chain reports (not a command of
// its own): the parsed arguments, the state as the command loads it, the dof tables of the text
// report and the closed-chain run (cli/closed_dynamics.cpp).
#pragma once

#include <Eigen/Core>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "skograph/model/constraints.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/state.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/mechanism.hpp"
#include "usage.hpp"

namespace skograph::cli {

enum class MassOutput { kDefault, kDense, kSparse, kNone };

struct DynamicsArguments {
  std::string file, state_file;
  bool json = false;
  MassOutput mass = MassOutput::kDefault;
  ClosedChainSolver solver = ClosedChainSolver::kEmbedding;  // --solver (closed chains)
  ReadOptions read;                                          // --strict, --independent, --loops
};

// A table with one row per dof: the dof name, an "indep" mark when `independent` is given, then
// one column per vector.
struct Column {
  const char* name;
  const Eigen::VectorXd* values;
};
void write_table(std::ostringstream& text, const std::vector<std::string>& dofs,
                 const std::vector<std::string>* independent, const std::vector<Column>& columns);
void write_matrix(std::ostringstream& text, const Eigen::MatrixXd& matrix);
std::string gravity_text(const Eigen::Vector3d& gravity);

// The state file's state, or the zero state without one, in the file's dof order and the model's
// coordinates: a state file names the file's joints, and --base converts it (model/state.hpp:
// read_model_state).
ModelState load_state(const std::string& state_file, const Model& model);
// A closure failure or singular configuration of a run on (file, state file) as one line naming
// the model (and the state); the loop file instead, with its line, when the failing loop came
// from one (model/model.hpp: loop_declaration).
UsageError closure_failure(const std::string& file, const std::string& state_file, const Error& e,
                           const Mechanism& mechanism);
// A failure the state leads to (a singular mass matrix, numbers that overflow, no rest
// configuration) as one line naming the state file first, the model after: "STATE: MESSAGE
// (model FILE)"; "FILE: MESSAGE (the zero state)" without a state file. MESSAGE loses a leading
// "FILE: ".
UsageError state_failure(const std::string& file, const std::string& state_file,
                         const std::string& message);
// What the state gives: for the force check's message.
std::string state_source(const std::string& state_file);

// The member links of aggregate s, joined by ", ".
std::string aggregate_links(const ClosedChainModel& model, int s);

// When one aggregate holds every joint, a note saying so (cli/warnings.hpp: printed when the
// command succeeds).
void note_whole_mechanism(const std::string& file, const ClosedChainModel& model);

// The model's warnings and notes (reader and model) for the end of the run (cli/warnings.hpp).
void keep_warnings(const Model& model);

// `dynamics` of a model with loops or couplings (cli/closed_dynamics.cpp).
int run_closed_dynamics(const DynamicsArguments& args, const Model& model, std::ostream& out);

}  // namespace skograph::cli
