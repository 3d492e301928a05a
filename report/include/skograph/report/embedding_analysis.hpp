// What `skograph analyze` and `skograph render --matrix M_R` show of a closed-chain model: its
// constraint-embedded SKO model (rigid/closed_chain_model.hpp; constraint-embedding §4-7) at a
// state: the aggregates, the independent coordinates, and the sparsity of the reduced mass matrix
// M_R = X* M X (the joint-space mass matrix of the embedded model, sparse/).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "skograph/model/dynamics.hpp"
#include "skograph/report/solver_strategy.hpp"
#include "skograph/viz/matrix_patterns.hpp"

namespace skograph::report {

struct EmbeddingAnalysis {
  struct Aggregate {
    std::vector<std::string> links;      // members, base first
    std::vector<std::string> loops;      // names of its loop closures
    std::vector<std::string> couplings;  // names of its gear couplings
    int dofs = 0;                        // n_S
    int constraint_rows = 0;             // rows of Q
    // At the state (when closed): the 1-based strictly canonical number of the aggregated node in
    // the embedded forest (the number `--what aggregated` prints), rank of Q, n_R.
    std::optional<int> node, rank, independent;
    // At the state (when closed): embedding against the multiplier method, modelled
    // (report/solver_strategy.hpp).
    std::optional<AggregateCost> cost;
  };
  std::string state;  // the state file, or "zero configuration"
  std::vector<Aggregate> aggregates;
  bool whole_mechanism = false;  // one aggregate holds every joint
  bool closed = false;           // the state could be closed; otherwise `failure` says why
  std::string failure;
  // The embedded model is not built for this model (flexible links in a loop): `failure` says so;
  // the state may well close.
  bool not_built = false;
  // How many independent coordinates the assembly had to move from the state's values to close
  // the loops (rigid/closed_chain_model.hpp: assemble).
  std::size_t moved = 0;
  std::vector<std::string> independent;  // independent dof names, as `skograph dynamics` lists
  // The independent dof of each row of M_R in `topology`'s order (the rows of its spy plot), by
  // name.
  std::vector<std::string> row_names;
  // Of the embedded model (when closed): its topology (aggregated forest in post-order, hinge
  // dimensions n_R) and the entries of M_R that are nonzero at the state.
  std::optional<viz::SkoTopology> topology;
  long nonzeros = 0;
};

// The embedding of a closed-chain model (model/model.hpp) at `state_file` (empty: the zero
// configuration), dependent coordinates closed by Newton as in `skograph dynamics`. Throws
// InputError for a bad state file; a state that cannot be closed (or a singular configuration)
// gives closed = false.
EmbeddingAnalysis embedding_analysis(const Model& model, const std::string& state_file);

}  // namespace skograph::report
