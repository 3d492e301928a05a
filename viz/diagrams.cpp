#include "skograph/viz/diagrams.hpp"

#include "skograph/graph/text_input.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "skograph/graph/numbering.hpp"

namespace skograph::viz {

namespace {

// Colours (ColorBrewer blues/oranges/greens, readable on white and in grey print).
constexpr const char* kNodeFill = "#c6dbef";
constexpr const char* kNodeLine = "#2171b5";
constexpr const char* kAggregateFill = "#fdd0a2";
constexpr const char* kAggregateLine = "#d94801";
constexpr const char* kSegmentFill = "#c7e9c0";
constexpr const char* kSegmentLine = "#238b45";
constexpr const char* kCutEdge = "#d62728";
constexpr const char* kCoupling = "#6a3d9a";  // purple: gear couplings
constexpr const char* kEdgeText = "#555555";
constexpr const char* kMarkedEdge = "#08519c";  // dark blue: independent coordinates' joints

// A DOT double-quoted identifier. In DOT the only escape in a quoted string is \" (a backslash
// stays a backslash), so only quotes are escaped and names read back unchanged.
std::string quoted(const std::string& text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Label text: Graphviz reads backslash escapes in labels (\n, \l, \N, ...), so a backslash of
// a name is doubled as well.
std::string label_text(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// A label text (escaped) whose lines are joined by DOT's centred line break "\n".
std::string label(const std::vector<std::string>& lines) {
  std::string joined;
  for (const std::string& line : lines) joined += (joined.empty() ? "" : "\\n") + label_text(line);
  return "\"" + joined + "\"";
}

// Text inside a Graphviz HTML-like label: markup characters as entities, and bytes that are not
// UTF-8 (or control characters) as U+FFFD, since the HTML parser refuses them and a name may hold
// any bytes.
std::string html_text(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      out += byte < 0x20 || byte == 0x7f ? std::string("&#xFFFD;")
                                         : html_escaped(std::string_view(text).substr(i, 1));
      ++i;
      continue;
    }
    // A sequence's length from its lead byte; overlong, surrogate or out-of-range ones refused.
    const std::size_t length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 0;
    bool valid = length > 0 && byte <= 0xf4 && byte >= 0xc2 && i + length <= text.size();
    for (std::size_t k = 1; valid && k < length; ++k)
      valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (valid && length >= 3) {
      const auto second = static_cast<unsigned char>(text[i + 1]);
      valid = !(byte == 0xe0 && second < 0xa0) && !(byte == 0xed && second >= 0xa0) &&
              !(byte == 0xf0 && second < 0x90) && !(byte == 0xf4 && second >= 0x90);
    }
    // U+FFFE and U+FFFF are UTF-8 but not XML, which the HTML-like labels are read as.
    if (valid && length == 3 && byte == 0xef && static_cast<unsigned char>(text[i + 1]) == 0xbf &&
        static_cast<unsigned char>(text[i + 2]) >= 0xbe) {
      out += "&#xFFFD;";
      i += 3;
      continue;
    }
    if (!valid) {
      out += "&#xFFFD;";
      ++i;
      continue;
    }
    out.append(text, i, length);
    i += length;
  }
  return out;
}

// An edge's label as an HTML-like table, one row per line: the cells' padding keeps the text off
// the edge it labels, and Graphviz sizes the whole table as one box in the layout.
std::string html_label(const std::vector<std::string>& lines) {
  std::string out = "<<TABLE BORDER=\"0\" CELLPADDING=\"3\" CELLSPACING=\"0\">";
  for (const std::string& line : lines) out += "<TR><TD>" + html_text(line) + "</TD></TR>";
  return out + "</TABLE>>";
}

// Attributes as DOT writes them in brackets: "a=1, b=2".
std::string joined(const std::vector<std::string>& attributes) {
  std::string out;
  for (const std::string& attribute : attributes) out += (out.empty() ? "" : ", ") + attribute;
  return out;
}

// The caption: the title, then one left-justified line per legend entry.
std::string caption(const std::string& title, const std::vector<std::string>& legend) {
  std::string text;
  for (const std::string& line : legend) text += label_text(line) + "\\l";
  return "\"" + label_text(title) + "\\l" + text + "\"";
}

void write_header(std::ostringstream& dot, const std::string& title,
                  const std::vector<std::string>& legend) {
  dot << "digraph " << quoted(title) << " {\n"
      << "  graph [fontname=\"DejaVu Sans\", fontsize=10, labelloc=b, labeljust=l, nodesep=0.3, "
         "ranksep=0.45, mclimit=4, label="
      << caption(title, legend) << "];\n"
      << "  node [fontname=\"DejaVu Sans\", fontsize=11, shape=ellipse, style=filled, fillcolor=\""
      << kNodeFill << "\", color=\"" << kNodeLine << "\", margin=\"0.06,0.03\"];\n"
      << "  edge [color=\"#404040\", arrowsize=0.7, fontname=\"DejaVu Sans\"];\n";
}

// Member lists wrapped to lines of about 24 characters: "{a, b,", "c}".
std::vector<std::string> wrapped_set(const std::vector<std::string>& names) {
  std::vector<std::string> lines(1, "{");
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string item = names[i] + (i + 1 < names.size() ? "," : "}");
    if (lines.back().size() > 1 && lines.back().size() + item.size() > 24) lines.emplace_back();
    lines.back() += (lines.back().size() > 1 ? " " : "") + item;
  }
  return lines;
}

// A long segment keeps its first three and last two members.
std::vector<std::string> abbreviated(const std::vector<std::string>& names) {
  if (names.size() <= 8) return names;
  std::vector<std::string> lines(names.begin(), names.begin() + 3);
  lines.push_back("... (" + std::to_string(names.size() - 5) + " more)");
  lines.insert(lines.end(), names.end() - 2, names.end());
  return lines;
}

std::string number_of(const Permutation& numbering, int k) {
  return std::to_string(numbering[k] + 1);
}

bool has_labels(const Digraph& graph, const EdgeNotes* notes) {
  return notes != nullptr && notes->label.size() == graph.edges().size() &&
         notes->role.size() == graph.edges().size();
}

// The strictly canonical number over the aggregated tree of each aggregation sub-graph (its node
// in aggregated.svg, the report and M_R's rows).
std::vector<int> aggregate_numbers(const DigraphAnalysis& analysis) {
  const AggregatedTree& aggregated = analysis.aggregated;
  const Permutation numbering = strictly_canonical_numbering(aggregated.forest);
  std::vector<int> number(analysis.aggregates.size(), 0);
  for (std::size_t a = 0; a < aggregated.members.size(); ++a)
    if (aggregated.subgraph_of[a] >= 0)
      number[static_cast<std::size_t>(aggregated.subgraph_of[a])] = numbering[a] + 1;
  return number;
}

// The style of a marked tree edge (EdgeNotes::marked): bold dark blue, dashed from the root.
void add_marked_style(std::vector<std::string>& attributes, bool from_root) {
  attributes.push_back(std::string("color=\"") + kMarkedEdge + "\"");
  attributes.push_back("penwidth=2");
  attributes.push_back(from_root ? "style=\"dashed,bold\"" : "style=bold");
}

void require_spanning_tree(const DigraphAnalysis& analysis) {
  if (!analysis.spanning.exists)
    throw std::invalid_argument("the digraph has no spanning tree (" + analysis.spanning.reason +
                                ")");
}

}  // namespace

const char* diagram_kind_name(DiagramKind kind) {
  switch (kind) {
    case DiagramKind::kDigraph:
      return "digraph";
    case DiagramKind::kSpanningTree:
      return "spanning-tree";
    case DiagramKind::kAggregated:
      return "aggregated";
    case DiagramKind::kSegments:
      return "segments";
  }
  return "?";
}

std::optional<DiagramKind> parse_diagram_kind(const std::string& name) {
  for (DiagramKind kind : {DiagramKind::kDigraph, DiagramKind::kSpanningTree,
                           DiagramKind::kAggregated, DiagramKind::kSegments})
    if (name == diagram_kind_name(kind)) return kind;
  return std::nullopt;
}

// Part I section 2 (the standard digraph, Fig. 6 conventions) and constraint-embedding §4.2 (cut
// edges, aggregation sub-graphs).
std::string digraph_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                            const std::string& title, const EdgeNotes* notes,
                            EdgeLabels edge_labels) {
  const bool labelled = has_labels(graph, notes);
  const SpanningTree& spanning = analysis.spanning;
  const bool numbered = spanning.exists;
  // The inertial frame is the root of the standard digraph; a virtual root is not in the digraph.
  const int inertial = numbered && !spanning.virtual_root ? spanning.root : -1;
  std::vector<std::string> legend;
  if (inertial >= 0) legend.push_back("unfilled: inertial frame (root), its edges dashed");
  if (numbered) legend.push_back("number: strictly canonical index (parent > child)");
  if (numbered && !spanning.cut_edges.empty()) {
    if (!labelled) {
      legend.push_back("red: cut edges");
    } else {
      bool loops = false, couplings = false;
      for (const EdgeRole role : notes->role) {
        loops = loops || role == EdgeRole::kLoop;
        couplings = couplings || role == EdgeRole::kCoupling;
      }
      if (loops) legend.push_back("red: loop closures (cut edges), with their names");
      if (couplings)
        legend.push_back("purple, dashed: gear couplings (cut edges), with their names");
    }
  }
  if (numbered && !analysis.aggregates.empty())
    legend.push_back(
        "orange boxes: aggregates (aggregation sub-graphs), numbered as nodes of the aggregated "
        "tree");
  if (labelled)
    for (const std::string& line : notes->legend) legend.push_back(line);

  std::ostringstream dot;
  write_header(dot, title, legend);
  auto node_statement = [&](int v) {
    std::vector<std::string> lines{graph.name(v)};
    if (numbered) lines.push_back(number_of(analysis.strictly_canonical, v));
    std::string statement = quoted(graph.name(v)) + " [label=" + label(lines);
    if (v == inertial) statement += ", style=solid";
    return statement + "];\n";
  };
  std::vector<int> depth(static_cast<std::size_t>(spanning.tree.size()), 0);
  std::vector<bool> is_cut(graph.edges().size(), false);
  if (numbered) {
    // Depth in the spanning tree: level order visits parents first.
    for (const auto& [parent, child] : spanning.edges)
      depth[static_cast<std::size_t>(child)] = depth[static_cast<std::size_t>(parent)] + 1;
    // Cut edges are listed in input order, so one forward pass marks them.
    size_t next = 0;
    for (size_t e = 0; e < graph.edges().size() && next < spanning.cut_edges.size(); ++e)
      if (graph.edges()[e] == spanning.cut_edges[next]) {
        is_cut[e] = true;
        ++next;
      }
  }
  // A cut edge towards a deeper node shapes the layout like a tree edge: every such edge and
  // every tree edge goes one level deeper or more, so they close no cycle of the drawing's ranks,
  // and with minimum length 1 the edge is never flat. Any other cut edge would fold the tree's
  // levels: it stays out of the layout.
  auto shapes_layout = [&](std::size_t e) {
    const auto [from, to] = graph.edges()[e];
    return !is_cut[e] ||
           depth[static_cast<std::size_t>(from)] < depth[static_cast<std::size_t>(to)];
  };
  auto has_label = [&](std::size_t e) { return labelled && !notes->label[e].empty(); };
  // The aggregate (cluster) each node is drawn in, -1 for none.
  std::vector<int> cluster_of(static_cast<std::size_t>(graph.node_count()), -1);
  if (numbered)
    for (std::size_t a = 0; a < analysis.aggregates.size(); ++a)
      for (int v : analysis.aggregates[a].nodes)
        cluster_of[static_cast<std::size_t>(v)] = static_cast<int>(a);
  // Some labelled edges are drawn through a plain-text node carrying the label, which the layout
  // keeps clear of other labels and edges like any node (with a margin around its text: without
  // one the router's splines graze the text of the densest robots' label nodes):
  // - an edge with an end in an aggregate, its label node in that aggregate's cluster when both
  //   ends are, else outside any: Graphviz 2.43 sizes a cluster by its nodes, and an edge's own
  //   label may stick out across the cluster's dashed outline;
  // - a cut edge out of the layout, its label node placed below both ends (each end -> label node
  //   shapes the layout, the head's half drawn backwards with its arrow at the head), so the edge
  //   folds no level of the tree. Its own label cannot do: Graphviz 2.43's dot frees a labelled
  //   flat edge (same rank, constraint=false) twice, and an external label (xlabel) is placed
  //   after the layout, where it may cover other labels or edges.
  auto through_label_node = [&](std::size_t e) {
    const auto [from, to] = graph.edges()[e];
    return has_label(e) && edge_labels == EdgeLabels::kLabelNodes &&
           (!shapes_layout(e) || cluster_of[static_cast<std::size_t>(from)] >= 0 ||
            cluster_of[static_cast<std::size_t>(to)] >= 0);
  };
  auto label_cluster = [&](std::size_t e) {
    const auto [from, to] = graph.edges()[e];
    const int cluster = cluster_of[static_cast<std::size_t>(from)];
    return cluster == cluster_of[static_cast<std::size_t>(to)] ? cluster : -1;
  };
  std::set<std::string> taken;
  for (int v = 0; v < graph.node_count(); ++v) taken.insert(graph.name(v));
  std::vector<std::string> label_node(graph.edges().size());
  for (std::size_t e = 0; e < graph.edges().size(); ++e) {
    if (!through_label_node(e)) continue;
    std::string name = "label of edge " + std::to_string(e + 1);
    while (taken.count(name) > 0) name += "'";
    taken.insert(name);
    label_node[e] = name;
  }
  auto label_colour = [&](std::size_t e) {
    if (is_cut[e]) return notes->role[e] == EdgeRole::kCoupling ? kCoupling : kCutEdge;
    return e < notes->marked.size() && notes->marked[e] ? kMarkedEdge : kEdgeText;
  };
  // The label nodes drawn in `cluster` (-1: none), each with its indent.
  auto label_node_statements = [&](int cluster, const std::string& indent) {
    std::string statements;
    for (std::size_t e = 0; e < graph.edges().size(); ++e)
      if (!label_node[e].empty() && label_cluster(e) == cluster)
        statements +=
            indent + quoted(label_node[e]) +
            " [shape=plaintext, style=\"\", margin=\"0.05,0.03\", width=0, height=0, fontsize=9, "
            "fontcolor=\"" +
            label_colour(e) + "\", label=" + html_label(notes->label[e]) + "];\n";
    return statements;
  };

  if (numbered) {
    const std::vector<int> number = aggregate_numbers(analysis);
    for (size_t a = 0; a < analysis.aggregates.size(); ++a) {
      // The label at the bottom left, out of the way of the edges: those from the world come in at
      // the top, and those leaving the cluster go down from its members.
      dot << "  subgraph " << quoted("cluster_aggregate_" + std::to_string(a + 1)) << " {\n"
          << "    graph [label=" << quoted("aggregate " + std::to_string(number[a]))
          << ", style=\"rounded,dashed\", color=\"" << kAggregateLine << "\", fontcolor=\""
          << kAggregateLine << "\", labelloc=b, labeljust=l];\n";
      // Members in the digraph's order, so the layout keeps the file's left-to-right order.
      std::vector<int> members = analysis.aggregates[a].nodes;
      std::sort(members.begin(), members.end());
      for (int v : members) dot << "    " << node_statement(v);
      dot << label_node_statements(static_cast<int>(a), "    ") << "  }\n";
    }
  }
  for (int v = 0; v < graph.node_count(); ++v)
    if (cluster_of[static_cast<std::size_t>(v)] < 0) dot << "  " << node_statement(v);
  dot << label_node_statements(-1, "  ");

  for (size_t e = 0; e < graph.edges().size(); ++e) {
    const auto [from, to] = graph.edges()[e];
    std::vector<std::string> attributes;
    const bool coupling = labelled && notes->role[e] == EdgeRole::kCoupling;
    const bool marked = labelled && e < notes->marked.size() && notes->marked[e];
    if (is_cut[e]) {
      attributes.push_back(std::string("color=\"") + (coupling ? kCoupling : kCutEdge) + "\"");
      attributes.push_back("penwidth=2");
      attributes.push_back(from == inertial || coupling ? "style=\"dashed,bold\"" : "style=bold");
    } else if (marked) {
      add_marked_style(attributes, from == inertial);
    } else if (from == inertial) {
      attributes.push_back("style=dashed");
    }
    const std::string tail = quoted(graph.name(from)), head = quoted(graph.name(to));
    if (!label_node[e].empty()) {
      // Tail down to the label node; then on to the head, or (out of the layout) the head down to
      // the label node, drawn back up to the head.
      const std::string middle = quoted(label_node[e]);
      const std::string style = attributes.empty() ? "" : joined(attributes) + ", ";
      dot << "  " << tail << " -> " << middle << " [" << style << "arrowhead=none];\n";
      if (shapes_layout(e))
        dot << "  " << middle << " -> " << head
            << (attributes.empty() ? "" : " [" + joined(attributes) + "]") << ";\n";
      else
        dot << "  " << head << " -> " << middle << " [" << style << "dir=back];\n";
      continue;
    }
    if (!shapes_layout(e)) attributes.push_back("constraint=false");
    if (has_label(e)) {
      attributes.push_back(std::string("fontcolor=\"") + label_colour(e) + "\"");
      // A flat edge's own label would crash Graphviz 2.43's layout (above): an external one.
      attributes.push_back((shapes_layout(e) ? "label=" : "xlabel=") + html_label(notes->label[e]));
      attributes.push_back("fontsize=9");
    }
    dot << "  " << tail << " -> " << head;
    if (!attributes.empty()) dot << " [" << joined(attributes) << "]";
    dot << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

// Part I section 2: the spanning tree of the digraph, its edges away from the root.
std::string spanning_tree_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                                  const std::string& title, const EdgeNotes* notes) {
  require_spanning_tree(analysis);
  const bool labelled = has_labels(graph, notes);
  const SpanningTree& spanning = analysis.spanning;
  const std::vector<std::string> names = spanning.names(graph);
  std::vector<std::string> legend{
      spanning.virtual_root ? "dashed outline: virtual root added above the roots, its edges dashed"
                            : "unfilled: inertial frame (root), its edges dashed",
      "number: strictly canonical index (parent > child)"};
  if (!spanning.cut_edges.empty())
    legend.push_back(std::to_string(spanning.cut_edges.size()) + " cut edge(s) left out");
  // Each tree edge's label and mark: the first digraph edge between its ends that is a joint.
  std::map<Edge, std::pair<std::vector<std::string>, bool>> edge_label;
  if (labelled) {
    for (const std::string& line : notes->legend) legend.push_back(line);
    for (std::size_t e = 0; e < graph.edges().size(); ++e)
      if (notes->role[e] == EdgeRole::kTreeJoint)
        edge_label.emplace(graph.edges()[e], std::pair(notes->label[e], e < notes->marked.size() &&
                                                                            notes->marked[e]));
  }

  std::ostringstream dot;
  write_header(dot, title, legend);
  for (int k = 0; k < spanning.tree.size(); ++k) {
    dot << "  " << quoted(names[k])
        << " [label=" << label({names[k], number_of(analysis.strictly_canonical, k)});
    if (k == spanning.root) dot << (spanning.virtual_root ? ", style=dashed" : ", style=solid");
    dot << "];\n";
  }
  for (const auto& [from, to] : spanning.edges) {
    dot << "  " << quoted(names[from]) << " -> " << quoted(names[to]);
    std::vector<std::string> attributes;
    const auto it = edge_label.find(Edge{from, to});
    const bool marked = it != edge_label.end() && it->second.second;
    if (marked) {
      add_marked_style(attributes, from == spanning.root);
    } else if (from == spanning.root) {
      attributes.emplace_back("style=dashed");
    }
    if (it != edge_label.end() && !it->second.first.empty()) {
      attributes.push_back("label=" + html_label(it->second.first));
      attributes.emplace_back("fontsize=9");
      attributes.push_back(std::string("fontcolor=\"") + (marked ? kMarkedEdge : kEdgeText) + "\"");
    }
    for (std::size_t i = 0; i < attributes.size(); ++i) dot << (i ? ", " : " [") << attributes[i];
    dot << (attributes.empty() ? ";\n" : "];\n");
  }
  dot << "}\n";
  return dot.str();
}

// Constraint-embedding Lemma 1: the tree after each aggregation sub-graph became one node.
std::string aggregated_tree_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                                    const std::string& title) {
  require_spanning_tree(analysis);
  const SpanningTree& spanning = analysis.spanning;
  const AggregatedTree& aggregated = analysis.aggregated;
  const std::vector<std::string> names = spanning.names(graph);
  const Permutation numbering = strictly_canonical_numbering(aggregated.forest);
  const int root = aggregated.node_of[spanning.root];
  std::vector<std::string> legend{"unfilled: inertial frame (root), its edges dashed",
                                  "number: strictly canonical index over the aggregated tree"};
  if (!analysis.aggregates.empty())
    legend.push_back(
        "orange boxes: aggregates {members, base first}, numbered as in digraph.svg, the report "
        "and the rows of M_R");
  else
    legend.push_back("no cut edges: the aggregated tree is the spanning tree");

  std::vector<std::string> ids(aggregated.members.size());
  for (size_t a = 0; a < aggregated.members.size(); ++a)
    for (int k : aggregated.members[a]) ids[a] += (ids[a].empty() ? "" : "+") + names[k];

  std::ostringstream dot;
  write_header(dot, title, legend);
  for (size_t a = 0; a < aggregated.members.size(); ++a) {
    const std::vector<int>& members = aggregated.members[a];
    std::vector<std::string> lines;
    if (aggregated.subgraph_of[a] >= 0) {
      std::vector<std::string> member_names;
      for (int k : members) member_names.push_back(names[k]);
      lines = wrapped_set(member_names);
    } else {
      lines.push_back(names[members.front()]);
    }
    lines.push_back(number_of(numbering, static_cast<int>(a)));
    dot << "  " << quoted(ids[a]) << " [label=" << label(lines);
    if (aggregated.subgraph_of[a] >= 0)
      dot << ", shape=box, style=\"rounded,filled\", fillcolor=\"" << kAggregateFill
          << "\", color=\"" << kAggregateLine << "\"";
    if (static_cast<int>(a) == root)
      dot << (spanning.virtual_root ? ", style=dashed" : ", style=solid");
    dot << "];\n";
  }
  for (int a = 0; a < aggregated.forest.size(); ++a) {
    const int p = aggregated.forest.parent(a);
    if (p == Forest::kNone) continue;
    dot << "  " << quoted(ids[p]) << " -> " << quoted(ids[a]);
    if (p == root) dot << " [style=dashed]";
    dot << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

// Part II section 7.1: the tree of serial segments, homeomorphic to the spanning tree.
std::string segment_tree_diagram(const Digraph& graph, const DigraphAnalysis& analysis,
                                 const std::string& title) {
  require_spanning_tree(analysis);
  const SpanningTree& spanning = analysis.spanning;
  const Forest& tree = spanning.tree;
  const std::vector<std::string> names = spanning.names(graph);
  const std::vector<std::string> legend{
      "segment i: the i-th block of the strictly canonical numbering",
      "members listed base first; edges from the root's segment dashed"};

  std::ostringstream dot;
  write_header(dot, title, legend);
  auto id = [](int s) { return quoted("segment " + std::to_string(s + 1)); };
  for (int s = tree.segment_count() - 1; s >= 0; --s) {
    const auto tip_first = tree.segment_nodes_tip_first(s);
    std::vector<std::string> members;
    for (auto it = tip_first.rbegin(); it != tip_first.rend(); ++it) members.push_back(names[*it]);
    std::vector<std::string> lines{"segment " + std::to_string(s + 1)};
    for (const std::string& line : abbreviated(members)) lines.push_back(line);
    dot << "  " << id(s) << " [label=" << label(lines) << ", shape=box, ";
    const bool root_alone = members.size() == 1 && tree.segment_base(s) == spanning.root;
    if (root_alone)
      dot << (spanning.virtual_root ? "style=\"rounded,dashed\"" : "style=rounded");
    else
      dot << "style=\"rounded,filled\", fillcolor=\"" << kSegmentFill << "\"";
    dot << ", color=\"" << kSegmentLine << "\"];\n";
  }
  for (int s = tree.segment_count() - 1; s >= 0; --s) {
    const int p = tree.segment_parent(s);
    if (p == Forest::kNone) continue;
    dot << "  " << id(p) << " -> " << id(s);
    if (tree.segment_tip(p) == spanning.root) dot << " [style=dashed]";
    dot << ";\n";
  }
  dot << "}\n";
  return dot.str();
}

std::string diagram(DiagramKind kind, const Digraph& graph, const DigraphAnalysis& analysis,
                    const std::string& title, const EdgeNotes* notes, EdgeLabels edge_labels) {
  switch (kind) {
    case DiagramKind::kDigraph:
      return digraph_diagram(graph, analysis, title, notes, edge_labels);
    case DiagramKind::kSpanningTree:
      return spanning_tree_diagram(graph, analysis, title, notes);
    case DiagramKind::kAggregated:
      return aggregated_tree_diagram(graph, analysis, title);
    case DiagramKind::kSegments:
      return segment_tree_diagram(graph, analysis, title);
  }
  throw std::invalid_argument("unknown diagram kind");
}

}  // namespace skograph::viz
