#include "skograph/report/graph_report.hpp"

#include <ostream>
#include <sstream>

#include "skograph/report/json_output.hpp"

namespace skograph::report {

namespace {

using Json = nlohmann::ordered_json;

std::string aggregate_name(const std::vector<std::string>& names, const std::vector<int>& members) {
  std::string name;
  for (int k : members) name += (name.empty() ? "" : "+") + names[k];
  return name;
}

Json edge_list(const std::vector<std::string>& names, const std::vector<Edge>& edges) {
  Json list = Json::array();
  for (const auto& [from, to] : edges) list.push_back({names[from], names[to]});
  return list;
}

}  // namespace

Json graph_report_json(const Digraph& graph, const DigraphAnalysis& analysis) {
  const Classification& c = analysis.classification;
  const SpanningTree& spanning = analysis.spanning;
  Json report;
  Json nodes = Json::array();
  for (int v = 0; v < graph.node_count(); ++v) nodes.push_back(graph.name(v));
  if (spanning.exists && spanning.virtual_root) nodes.push_back(spanning.virtual_root_name);
  report["nodes"] = nodes;
  report["class"] = c.class_name();
  report["is"] = {
      {"connected", c.connected}, {"rooted", c.rooted}, {"dag", c.dag},
      {"polytree", c.polytree},   {"tree", c.tree},     {"serial_chain", c.serial_chain},
      {"forest", c.forest}};
  Json roots = Json::array(), tips = Json::array();
  for (int v : c.roots) roots.push_back(graph.name(v));
  for (int v : c.tips) tips.push_back(graph.name(v));
  report["roots"] = roots;
  report["tips"] = tips;
  if (!spanning.exists) return report;

  const std::vector<std::string> names = spanning.names(graph);
  report["spanning_tree"] = {{"root", names[spanning.root]},
                             {"virtual_root", spanning.virtual_root},
                             {"edges", edge_list(names, spanning.edges)},
                             {"cut_edges", edge_list(names, spanning.cut_edges)}};
  Json canonical = Json::object(), strict = Json::object();
  for (size_t k = 0; k < names.size(); ++k) {
    append_distinct(canonical, names[k], analysis.canonical[k] + 1);
    append_distinct(strict, names[k], analysis.strictly_canonical[k] + 1);
  }
  report["canonical"] = canonical;
  report["strictly_canonical"] = strict;

  const Forest& tree = spanning.tree;
  Json segments = Json::array();
  for (int s = 0; s < tree.segment_count(); ++s) {
    Json members = Json::array();
    const auto tip_first = tree.segment_nodes_tip_first(s);
    for (auto it = tip_first.rbegin(); it != tip_first.rend(); ++it) members.push_back(names[*it]);
    const int parent = tree.segment_parent(s);
    segments.push_back({{"nodes", members}, {"parent", parent == Forest::kNone ? 0 : parent + 1}});
  }
  report["segments"] = segments;

  Json aggregates = Json::array();
  for (const AggregationSubgraph& a : analysis.aggregates) {
    Json members = Json::array();
    for (int k : a.nodes) members.push_back(names[k]);
    aggregates.push_back({{"nodes", members},
                          {"parent", names[a.parent]},
                          {"cut_edges", edge_list(names, a.cut_edges)}});
  }
  report["aggregates"] = aggregates;

  const AggregatedTree& aggregated = analysis.aggregated;
  Json aggregated_nodes = Json::array(), aggregated_edges = Json::array();
  for (const auto& members : aggregated.members)
    aggregated_nodes.push_back(aggregate_name(names, members));
  for (int a = 0; a < aggregated.forest.size(); ++a) {
    const int p = aggregated.forest.parent(a);
    if (p != Forest::kNone)
      aggregated_edges.push_back({aggregate_name(names, aggregated.members[p]),
                                  aggregate_name(names, aggregated.members[a])});
  }
  report["aggregated_tree"] = {{"nodes", aggregated_nodes}, {"edges", aggregated_edges}};
  return report;
}

namespace {

// Writes the layout of format_json (report/json_output.hpp) for the graph report's shapes: objects
// one key per line, arrays of scalars and of short arrays on one line, arrays of objects one
// element per line.
class ReportWriter {
 public:
  std::string text;

  void open_object() {
    text += "{";
    first_.push_back(true);
  }
  void close_object(int indent) {
    text += first_.back() ? "}" : "\n" + std::string(static_cast<std::size_t>(indent), ' ') + "}";
    first_.pop_back();
  }
  void key(const std::string& name, int indent) {
    text += first_.back() ? "\n" : ",\n";
    first_.back() = false;
    text.append(static_cast<std::size_t>(indent), ' ');
    append_json_string(text, name);
    text += ": ";
  }
  template <class Range, class Write>
  void flat_array(const Range& items, Write write) {
    text += "[";
    bool first = true;
    for (const auto& item : items) {
      if (!first) text += ", ";
      first = false;
      write(item);
    }
    text += "]";
  }
  void names(const std::vector<int>& nodes, const std::vector<std::string>& names_of) {
    flat_array(nodes, [&](int v) { append_json_string(text, names_of[v]); });
  }
  void edges(const std::vector<Edge>& list, const std::vector<std::string>& names_of) {
    flat_array(list, [&](const Edge& e) {
      text += "[";
      append_json_string(text, names_of[e.first]);
      text += ", ";
      append_json_string(text, names_of[e.second]);
      text += "]";
    });
  }

 private:
  std::vector<bool> first_;
};

}  // namespace

std::string graph_report_json_text(const Digraph& graph, const DigraphAnalysis& analysis) {
  const Classification& c = analysis.classification;
  const SpanningTree& spanning = analysis.spanning;
  ReportWriter w;
  w.open_object();
  w.key("nodes", 2);
  std::vector<std::string> input_names;
  input_names.reserve(static_cast<std::size_t>(graph.node_count()) + 1);
  for (int v = 0; v < graph.node_count(); ++v) input_names.push_back(graph.name(v));
  std::vector<int> all(input_names.size());
  for (std::size_t v = 0; v < all.size(); ++v) all[v] = static_cast<int>(v);
  if (spanning.exists && spanning.virtual_root) {
    input_names.push_back(spanning.virtual_root_name);
    all.push_back(static_cast<int>(all.size()));
  }
  w.names(all, input_names);
  w.key("class", 2);
  append_json_string(w.text, c.class_name());
  w.key("is", 2);
  w.open_object();
  const std::pair<const char*, bool> flags[] = {
      {"connected", c.connected}, {"rooted", c.rooted}, {"dag", c.dag},
      {"polytree", c.polytree},   {"tree", c.tree},     {"serial_chain", c.serial_chain},
      {"forest", c.forest}};
  for (const auto& [name, value] : flags) {
    w.key(name, 4);
    w.text += value ? "true" : "false";
  }
  w.close_object(2);
  w.key("roots", 2);
  w.names(c.roots, input_names);
  w.key("tips", 2);
  w.names(c.tips, input_names);
  if (spanning.exists) {
    const std::vector<std::string> names = spanning.names(graph);
    w.key("spanning_tree", 2);
    w.open_object();
    w.key("root", 4);
    append_json_string(w.text, names[spanning.root]);
    w.key("virtual_root", 4);
    w.text += spanning.virtual_root ? "true" : "false";
    w.key("edges", 4);
    w.edges(spanning.edges, names);
    w.key("cut_edges", 4);
    w.edges(spanning.cut_edges, names);
    w.close_object(2);
    for (const auto& [key, numbers] :
         {std::pair<const char*, const std::vector<int>*>{"canonical", &analysis.canonical},
          {"strictly_canonical", &analysis.strictly_canonical}}) {
      w.key(key, 2);
      w.open_object();
      for (std::size_t k = 0; k < names.size(); ++k) {
        w.key(names[k], 4);
        w.text += std::to_string((*numbers)[k] + 1);
      }
      w.close_object(2);
    }
    const Forest& tree = spanning.tree;
    w.key("segments", 2);
    if (tree.segment_count() == 0) w.text += "[]";
    std::vector<int> members;
    for (int s = 0; s < tree.segment_count(); ++s) {
      w.text += s == 0 ? "[\n    " : ",\n    ";
      members.clear();
      const auto tip_first = tree.segment_nodes_tip_first(s);
      for (auto it = tip_first.rbegin(); it != tip_first.rend(); ++it) members.push_back(*it);
      w.open_object();
      w.key("nodes", 6);
      w.names(members, names);
      w.key("parent", 6);
      const int parent = tree.segment_parent(s);
      w.text += std::to_string(parent == Forest::kNone ? 0 : parent + 1);
      w.close_object(4);
      if (s + 1 == tree.segment_count()) w.text += "\n  ]";
    }
    w.key("aggregates", 2);
    if (analysis.aggregates.empty()) w.text += "[]";
    for (std::size_t i = 0; i < analysis.aggregates.size(); ++i) {
      const AggregationSubgraph& a = analysis.aggregates[i];
      w.text += i == 0 ? "[\n    " : ",\n    ";
      w.open_object();
      w.key("nodes", 6);
      w.names(a.nodes, names);
      w.key("parent", 6);
      append_json_string(w.text, names[a.parent]);
      w.key("cut_edges", 6);
      w.edges(a.cut_edges, names);
      w.close_object(4);
      if (i + 1 == analysis.aggregates.size()) w.text += "\n  ]";
    }
    const AggregatedTree& aggregated = analysis.aggregated;
    w.key("aggregated_tree", 2);
    w.open_object();
    w.key("nodes", 4);
    w.flat_array(aggregated.members, [&](const std::vector<int>& members_of) {
      append_json_string(w.text, aggregate_name(names, members_of));
    });
    w.key("edges", 4);
    std::vector<Edge> tree_edges;
    for (int a = 0; a < aggregated.forest.size(); ++a)
      if (aggregated.forest.parent(a) != Forest::kNone)
        tree_edges.emplace_back(aggregated.forest.parent(a), a);
    w.flat_array(tree_edges, [&](const Edge& e) {
      w.text += "[";
      append_json_string(w.text, aggregate_name(names, aggregated.members[e.first]));
      w.text += ", ";
      append_json_string(w.text, aggregate_name(names, aggregated.members[e.second]));
      w.text += "]";
    });
    w.close_object(2);
  }
  w.close_object(0);
  return w.text + "\n";
}

std::string graph_report_text(const Digraph& graph, const DigraphAnalysis& analysis) {
  const Classification& c = analysis.classification;
  const SpanningTree& spanning = analysis.spanning;
  std::ostringstream text;
  auto list = [&](const std::vector<int>& nodes, const std::vector<std::string>& names) {
    std::string s;
    for (int v : nodes) s += (s.empty() ? "" : ", ") + names[v];
    return s.empty() ? std::string("(none)") : s;
  };
  std::vector<std::string> input_names;
  for (int v = 0; v < graph.node_count(); ++v) input_names.push_back(graph.name(v));
  text << "digraph: " << graph.node_count() << " nodes, " << graph.edge_count() << " edges\n";
  text << "class:   " << c.class_name() << "\n";
  text << std::boolalpha << "is:      connected=" << c.connected << " rooted=" << c.rooted
       << " dag=" << c.dag << " polytree=" << c.polytree << " tree=" << c.tree
       << " serial_chain=" << c.serial_chain << " forest=" << c.forest << "\n";
  text << "roots:   " << list(c.roots, input_names) << "\n";
  text << "tips:    " << list(c.tips, input_names) << "\n";
  if (!spanning.exists) {
    text << "spanning tree: none (" << spanning.reason << ")\n";
    return text.str();
  }
  const std::vector<std::string> names = spanning.names(graph);
  const Forest& tree = spanning.tree;
  text << "spanning tree: root " << names[spanning.root]
       << (spanning.virtual_root ? " (virtual common root added above the roots)" : "") << ", "
       << spanning.edges.size() << " tree edges, " << spanning.cut_edges.size() << " cut edges\n";
  for (const auto& [from, to] : spanning.cut_edges)
    text << "  cut edge " << names[from] << " -> " << names[to] << "\n";
  text << "numbering (1-based; canonical: parent > child; strictly canonical: segments "
          "consecutive)\n";
  const Permutation by_strict = inverse(analysis.strictly_canonical);
  for (int i = static_cast<int>(names.size()) - 1; i >= 0; --i) {
    const int k = by_strict[i];
    text << "  " << names[k] << ": canonical " << analysis.canonical[k] + 1
         << ", strictly canonical " << analysis.strictly_canonical[k] + 1 << "\n";
  }
  text << "serial segments (base ... tip):\n";
  for (int s = tree.segment_count() - 1; s >= 0; --s) {
    const auto tip_first = tree.segment_nodes_tip_first(s);
    std::string members;
    for (auto it = tip_first.rbegin(); it != tip_first.rend(); ++it)
      members += (members.empty() ? "" : " -> ") + names[*it];
    const int parent = tree.segment_parent(s);
    text << "  segment " << s + 1 << ": " << members;
    if (parent != Forest::kNone) text << "  (parent segment " << parent + 1 << ")";
    text << "\n";
  }
  if (analysis.aggregates.empty()) {
    text << "aggregation sub-graphs: none (the digraph is a tree)\n";
  } else {
    text << "aggregation sub-graphs (constraint embedding):\n";
    for (const AggregationSubgraph& a : analysis.aggregates) {
      text << "  {" << list(a.nodes, names) << "} under " << names[a.parent] << ", embedding";
      for (const auto& [from, to] : a.cut_edges) text << " " << names[from] << "->" << names[to];
      text << "\n";
    }
    text << "aggregated tree: " << analysis.aggregated.members.size() << " nodes\n";
  }
  return text.str();
}

}  // namespace skograph::report
