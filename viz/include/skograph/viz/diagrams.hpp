// Diagrams of a digraph and of the trees derived from it, as DOT text that skograph writes itself
// (Graphviz then lays it out: viz/graphviz_layout.hpp).
//
// Conventions of part I (section 2, Fig. 6): the inertial frame (the root of the standard digraph)
// is drawn unfilled and the edges leaving it dashed. Nodes are labelled with their name and their
// 1-based strictly canonical number (part I Fig. 2d; it is canonical too: a parent's number
// exceeds its children's), the numbering of `skograph graph` and of the spy plots' rows. Cut edges
// are red and bold; aggregation sub-graphs (constraint-embedding §4.2) are clusters, numbered as
// the nodes of the aggregated tree (one numbering for aggregated.svg, the report and M_R's rows).
// A model adds EdgeNotes: joint names and types on tree edges, loop and coupling names on cut
// edges, couplings dashed purple, marked joints bold blue. A cut edge towards a node deeper in the
// spanning tree takes part in the layout (a platform closing several legs sits below all of them);
// any other cut edge does not (it would fold the tree's levels).
//
// The text is deterministic (nodes and edges in a fixed order), so it can be compared exactly.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "skograph/graph/analysis.hpp"
#include "skograph/graph/digraph.hpp"

namespace skograph::viz {

enum class DiagramKind { kDigraph, kSpanningTree, kAggregated, kSegments };

// What a model says about its digraph's edges (built by the caller, e.g. from a mechanism): per
// edge of graph.edges() its role and its label's lines (a joint's name, then its type in
// parentheses and any further notes; a loop's or a coupling's name), whether it is marked (drawn
// bold blue: the joints of a closed chain's independent coordinates), and the legend lines that
// explain the labels and the marks. Empty vectors: no labels; `marked` may be empty (nothing
// marked).
enum class EdgeRole { kTreeJoint, kLoop, kCoupling };
struct EdgeNotes {
  std::vector<EdgeRole> role;
  std::vector<std::vector<std::string>> label;
  std::vector<bool> marked;
  std::vector<std::string> legend;
};

// Where the digraph's edge labels go. kLabelNodes, for drawing: an edge with an end in an aggregate
// and a cut edge out of the layout are drawn through a plain-text node carrying the label, which
// Graphviz keeps clear of other labels, edges and cluster outlines. kOnEdges, for DOT text: every
// label on its own edge, so that the text reads back as the same digraph.
enum class EdgeLabels { kLabelNodes, kOnEdges };

// "digraph", "spanning-tree", "aggregated", "segments".
const char* diagram_kind_name(DiagramKind kind);
std::optional<DiagramKind> parse_diagram_kind(const std::string& name);

// The digraph itself, edges in input order. Without a spanning tree (a cycle no root enters) the
// nodes carry their names only. `title` becomes the graph's name and the first caption line.
std::string digraph_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                            const std::string& title, const EdgeNotes* notes = nullptr,
                            EdgeLabels edge_labels = EdgeLabels::kLabelNodes);
// The spanning tree (virtual root drawn with a dashed outline), edges in the tree's level order.
std::string spanning_tree_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                                  const std::string& title, const EdgeNotes* notes = nullptr);
// The aggregated tree (constraint-embedding Lemma 1): each aggregation sub-graph is one box node
// listing its members, numbered strictly canonically over the aggregated tree.
std::string aggregated_tree_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                                    const std::string& title);
// The tree of serial segments of the spanning tree (part II section 7.1): one node per segment,
// numbered as in `skograph graph` (segment i is the i-th block of the strictly canonical
// numbering), listing its members base first.
std::string segment_tree_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                                 const std::string& title);

// One of the above. The three tree diagrams need a spanning tree: std::invalid_argument saying
// why there is none otherwise.
std::string diagram(DiagramKind kind, const Digraph& graph, const DigraphAnalysis& analysis,
                    const std::string& title, const EdgeNotes* notes = nullptr,
                    EdgeLabels edge_labels = EdgeLabels::kLabelNodes);

}  // namespace skograph::viz
