// Shared by the model commands (dynamics, bench, simulate): loading a mechanism file into a tree
// or closed-chain model, bad usage as one line, number options, JSON of vectors and matrices.
#pragma once

#include <Eigen/Core>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/usage.hpp"
#include "rigid/closed_chain_model.hpp"
#include "rigid/mechanism.hpp"

namespace skograph::cli {

// The mechanism of a model file, massless fixed leaves dropped (io/mechanism_file.hpp).
Mechanism load_mechanism(const std::string& file);
bool is_closed_chain(const Mechanism& mechanism);

// The constraint-embedded model; what the model rejects becomes a UsageError naming the file.
ClosedChainModel load_closed_chain_model(const std::string& file, Mechanism mechanism);

// "FILE: " + message, unless the message already starts with the file name.
std::string naming_file(const std::string& file, const std::string& message);

// The member links of aggregate s, joined by ", ".
std::string aggregate_links(const ClosedChainModel& model, int s);

// When one aggregate holds every joint, a note on `err` saying so (the run goes on).
void note_whole_mechanism(const char* command, const std::string& file,
                          const ClosedChainModel& model, std::ostream& err);

nlohmann::ordered_json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v);
nlohmann::ordered_json matrix_json(const Eigen::Ref<const Eigen::MatrixXd>& m);

// The full Xdot qd_R (dofs) of the last closed-chain update: each aggregate's Xdot_S qd_R placed
// at its tree dofs, zero at the dofs outside every aggregate.
Eigen::VectorXd embedding_rate(const ClosedChainModel& model, const ClosedChainData& data);

}  // namespace skograph::cli
