// Shared by the model commands (dynamics, bench, simulate): loading a mechanism file into a tree
// or closed-chain model, bad usage as one line, number options, JSON of vectors and matrices.
#pragma once

#include <Eigen/Core>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "usage.hpp"
#include "skograph/io/dof_order.hpp"
#include "skograph/io/model.hpp"  // naming_file
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/rigid_body_model.hpp"

namespace skograph::cli {

using skograph::DofOrder;

// The mechanism of a model file (any format, io/mechanism_file.hpp) with its fixed bodies fused
// (rigid/fixed_body_fusion.hpp) and its joints depth first (rigid/tree_order.hpp), with the map
// back to the file's dof order when `dof_order` is given; the reader's warnings are kept for the
// end of the run (cli/warnings.hpp). `strict` refuses physically inconsistent inertias.
// `independent` (--independent) replaces the file's `independent:` list (issue 16).
Mechanism load_mechanism(const std::string& file, bool strict = false,
                         DofOrder* dof_order = nullptr,
                         const std::vector<std::string>& independent = {});
// The mechanism with `independent` (when given) as its independent coordinates, the names checked
// against it: UsageError "FILE: --independent: 'x' is not a joint ...".
Mechanism with_independent(const std::string& file, Mechanism mechanism,
                           const std::vector<std::string>& independent);
bool is_closed_chain(const Mechanism& mechanism);

// The tree model (RigidBodyModel) and the constraint-embedded model (ClosedChainModel); what the
// model rejects becomes a UsageError naming the file. Massless moving subtrees (a joint whose
// links below are all massless: its acceleration is not determined by the dynamics) are refused
// under `strict` and otherwise named in a warning.
RigidBodyModel load_tree_model(const std::string& file, Mechanism mechanism, bool strict = false);
ClosedChainModel load_closed_chain_model(const std::string& file, Mechanism mechanism,
                                         bool strict = false);

// A generalized force on a joint that moves no mass would accelerate nothing: a UsageError naming
// the joint and the source of the force (`what`, e.g. "the state STATE.json").
void check_no_force_on_massless_joints(const std::string& file, const RigidBodyModel& tree,
                                       const std::vector<int>& massless_joints,
                                       const Eigen::VectorXd& tau, const std::string& what);

// The member links of aggregate s, joined by ", ".
std::string aggregate_links(const ClosedChainModel& model, int s);

// When one aggregate holds every joint, a note saying so (cli/warnings.hpp: printed when the
// command succeeds).
void note_whole_mechanism(const std::string& file, const ClosedChainModel& model);

nlohmann::ordered_json vector_json(const Eigen::Ref<const Eigen::VectorXd>& v);
nlohmann::ordered_json matrix_json(const Eigen::Ref<const Eigen::MatrixXd>& m);

}  // namespace skograph::cli
