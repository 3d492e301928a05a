// The pieces `skograph dynamics` shares between its tree and closed-chain reports
// (cli/dynamics_report.hpp).
#include "dynamics_report.hpp"

#include <iomanip>

#include "skograph/model/base_change.hpp"
#include "warnings.hpp"

namespace skograph::cli {

void write_table(std::ostringstream& text, const std::vector<std::string>& dofs,
                 const std::vector<std::string>* independent, const std::vector<Column>& columns) {
  text << std::left << std::setw(14) << "dof" << std::right;
  if (independent) text << std::setw(6) << "indep";
  for (const Column& column : columns) text << std::setw(13) << column.name;
  text << "\n" << std::setprecision(6);
  for (size_t i = 0; i < dofs.size(); ++i) {
    const auto k = static_cast<Eigen::Index>(i);
    text << std::left << std::setw(14) << dofs[i] << std::right;
    if (independent) text << std::setw(6) << (*independent)[i];
    for (const Column& column : columns) text << std::setw(13) << (*column.values)(k);
    text << "\n";
  }
}

void write_matrix(std::ostringstream& text, const Eigen::MatrixXd& matrix) {
  for (Eigen::Index r = 0; r < matrix.rows(); ++r) {
    for (Eigen::Index c = 0; c < matrix.cols(); ++c) text << std::setw(13) << matrix(r, c);
    text << "\n";
  }
}

std::string gravity_text(const Eigen::Vector3d& gravity) {
  std::ostringstream text;
  text << "gravity (" << gravity.x() << ", " << gravity.y() << ", " << gravity.z() << ")";
  return text.str();
}

ModelState load_state(const std::string& state_file, const Model& model) {
  return read_model_state(state_file, model);
}

// A ClosureError of a run on (file, state file) as one line naming the model (and the state).
UsageError closure_failure(const std::string& file, const std::string& state_file, const Error& e,
                           const Mechanism& mechanism) {
  const Declaration declared = loop_declaration(mechanism, e);
  const std::string named =
      declared.file.empty() ? file : declared.file + ":" + std::to_string(declared.line);
  return UsageError(naming_file(named, e.what()) + (state_file.empty()
                                                        ? std::string(" (zero state)")
                                                        : " (state " + state_file + ")"));
}

UsageError state_failure(const std::string& file, const std::string& state_file,
                         const std::string& message) {
  const std::string prefix = file + ": ";
  const std::string problem = message.starts_with(prefix) ? message.substr(prefix.size()) : message;
  if (state_file.empty()) return UsageError(prefix + problem + " (the zero state)");
  return UsageError(state_file + ": " + problem + " (model " + file + ")");
}

// What the state gives: for the force check's message.
std::string state_source(const std::string& state_file) {
  return state_file.empty() ? std::string("the zero state") : "the state " + state_file;
}

std::string aggregate_links(const ClosedChainModel& model, int s) {
  std::string names;
  for (int node : model.aggregate_nodes(s))
    names += (names.empty() ? "" : ", ") +
             model.mechanism().links[static_cast<size_t>(model.tree().link_of_node(node))].name;
  return names;
}

void note_whole_mechanism(const std::string& file, const ClosedChainModel& model) {
  if (!model.swallows_whole_mechanism()) return;
  int moving = 0;  // the fixed joints (a loop's carrier on a flexible link) are not counted
  for (int k = 0; k < model.tree().joint_count(); ++k) moving += model.tree().joint_dofs(k) > 0;
  add_note(file, "one aggregate holds all " + std::to_string(moving) +
                     " joints of the mechanism, so the embedded model is a single node (results "
                     "are exact; the recursions gain nothing from the tree structure)");
}

void keep_warnings(const Model& model) {
  add_warnings(model.file(), model.warnings());
  for (const std::string& note : model.notes()) add_note(model.file(), note);
}

}  // namespace skograph::cli
