// The whole public API of skograph in one include (or include the layers' headers one by one:
// <skograph/graph/...>, <skograph/operators/...>, ...). docs/library.md walks through it.
#pragma once

#include "skograph/config.hpp"

// graph/: digraphs, canonical numberings, spanning trees, serial segments.
#include "skograph/graph/analysis.hpp"
#include "skograph/graph/classification.hpp"
#include "skograph/graph/digraph.hpp"
#include "skograph/graph/forest.hpp"
#include "skograph/graph/numbering.hpp"
#include "skograph/graph/spanning_tree.hpp"

// operators/: SKO models, BWA operators, 1-resolvents, tree recursions.
#include "skograph/operators/articulated_body.hpp"
#include "skograph/operators/bwa.hpp"
#include "skograph/operators/bwa_matrix.hpp"
#include "skograph/operators/forward_dynamics.hpp"
#include "skograph/operators/inverse_dynamics.hpp"
#include "skograph/operators/mass_matrix.hpp"
#include "skograph/operators/segment_sparsity.hpp"
#include "skograph/operators/sko_model.hpp"

// aggregation/: cut-edge aggregation and constraint embedding.
#include "skograph/aggregation/aggregated_model.hpp"
#include "skograph/aggregation/constraint_embedding.hpp"

// rigid/: mechanisms, rigid-body tree and closed-chain models.
#include "skograph/rigid/beam_modes.hpp"
#include "skograph/rigid/modal_body.hpp"
#include "skograph/rigid/closed_chain_forces.hpp"
#include "skograph/rigid/closed_chain_model.hpp"
#include "skograph/rigid/closed_chain_simulation.hpp"
#include "skograph/rigid/derivatives.hpp"
#include "skograph/rigid/frames.hpp"
#include "skograph/rigid/inverse_kinematics.hpp"
#include "skograph/rigid/kinematics.hpp"
#include "skograph/rigid/mechanism.hpp"
#include "skograph/rigid/rigid_body_model.hpp"
#include "skograph/rigid/tangent.hpp"

// io/: the readers of model files, loop files and states.
#include "skograph/io/loop_file.hpp"
#include "skograph/io/mechanism_file.hpp"
#include "skograph/io/modal_file.hpp"
#include "skograph/io/state_reader.hpp"

// model/: the model everyone calls (load_model: a ready model of any supported file), in the
// file's dof order: states, dynamics, kinematics, constraints, operators, base change,
// simulation and timing.
#include "skograph/model/base_change.hpp"
#include "skograph/model/constraints.hpp"
#include "skograph/model/derivatives.hpp"
#include "skograph/model/dynamics.hpp"
#include "skograph/model/kinematics.hpp"
#include "skograph/model/linearization.hpp"
#include "skograph/model/model.hpp"
#include "skograph/model/operators.hpp"
#include "skograph/model/simulation.hpp"
#include "skograph/model/timing.hpp"

// sparse/: compressed-column operators, CHOLMOD factorizations, Matrix Market.
#include "skograph/sparse/cholmod_factorization.hpp"
#include "skograph/sparse/matrix_market.hpp"
#include "skograph/sparse/sparse_assembly.hpp"

#if SKOGRAPH_HAVE_VIZ
// viz/: Graphviz diagrams and cairo spy plots.
#include "skograph/viz/diagrams.hpp"
#include "skograph/viz/spy_plot.hpp"
#endif
