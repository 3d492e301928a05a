#include "graph/digraph.hpp"

#include <algorithm>
#include <boost/graph/graphviz.hpp>
#include <cctype>
#include <climits>
#include <cstdint>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace skograph {

namespace {

std::string format_input_error(const std::string& source, int line, const std::string& problem) {
  std::ostringstream text;  // (an ostringstream sidesteps GCC 12's false -Wrestrict on string +)
  text << source;
  if (line > 0) text << ':' << line;
  text << ": " << problem;
  return text.str();
}

// DOT-quoted identifier.
std::string quoted(const std::string& id) {
  std::string out = "\"";
  for (char c : id) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// Best effort: the 1-based line of the `occurrence`-th textual edge `from -> to` in DOT text.
int find_edge_line(const std::string& text, const std::string& from, const std::string& to,
                   int occurrence) {
  auto escape = [](const std::string& s) {
    return std::regex_replace(s, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)");
  };
  const std::string id_from = "\"?" + escape(from) + "\"?", id_to = "\"?" + escape(to) + "\"?";
  try {
    const std::regex edge("(^|[^A-Za-z0-9_\"])" + id_from + R"(\s*->\s*)" + id_to +
                          "($|[^A-Za-z0-9_\"])");
    int seen = 0;
    for (auto it = std::sregex_iterator(text.begin(), text.end(), edge);
         it != std::sregex_iterator(); ++it) {
      if (++seen == occurrence) {
        const auto position = static_cast<std::ptrdiff_t>(it->position());
        return 1 + static_cast<int>(std::count(text.begin(), text.begin() + position, '\n'));
      }
    }
  } catch (const std::regex_error&) {
  }
  return 0;
}

// Receives what Boost's DOT parser reads: node ids, and edges in the order of the file.
class DotSink : public boost::detail::graph::mutate_graph {
 public:
  bool is_directed() const override { return true; }
  void do_add_vertex(const boost::detail::graph::node_t& node) override { nodes.push_back(node); }
  void do_add_edge(const boost::detail::graph::edge_t&, const boost::detail::graph::node_t& source,
                   const boost::detail::graph::node_t& target) override {
    edges.emplace_back(source, target);
  }
  void set_node_property(const boost::detail::graph::id_t&, const boost::detail::graph::node_t&,
                         const boost::detail::graph::id_t&) override {}
  void set_edge_property(const boost::detail::graph::id_t&, const boost::detail::graph::edge_t&,
                         const boost::detail::graph::id_t&) override {}
  void set_graph_property(const boost::detail::graph::id_t&,
                          const boost::detail::graph::id_t&) override {}
  void finish_building_graph() override {}

  std::vector<std::string> nodes;
  std::vector<std::pair<std::string, std::string>> edges;
};

// The text position where each node id first appears as a node (not as a keyword, graph or
// subgraph name, attribute name or value, or port). A small DOT lexer: the syntax itself has
// already been checked by Boost's parser.
std::unordered_map<std::string, std::size_t> first_appearance(const std::string& text) {
  std::unordered_map<std::string, std::size_t> first;
  const std::size_t n = text.size();
  std::size_t i = 0;
  int bracket_depth = 0;
  bool skip_next_id = false;  // graph/subgraph name, attribute value or port
  std::string previous_punct;
  auto is_id_start = [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c >= 0x80 || c == '.' || c == '-';
  };
  while (i < n) {
    const unsigned char c = text[i];
    if (std::isspace(c)) {
      ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '#' && (i == 0 || text[i - 1] == '\n')) {
      while (i < n && text[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      const std::size_t end = text.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
      continue;
    }
    if (c == '-' && i + 1 < n && (text[i + 1] == '>' || text[i + 1] == '-')) {
      i += 2;
      previous_punct = "->";
      continue;
    }
    std::string id;
    const std::size_t position = i;
    if (c == '"') {
      ++i;
      while (i < n && text[i] != '"') {
        if (text[i] == '\\' && i + 1 < n && text[i + 1] == '"') {
          id += '"';
          i += 2;
          continue;
        }
        if (text[i] == '\\' && i + 1 < n && text[i + 1] == '\n') {
          i += 2;
          continue;
        }
        id += text[i++];
      }
      ++i;
    } else if (c == '<') {
      int depth = 0;
      do {
        if (text[i] == '<') ++depth;
        if (text[i] == '>') --depth;
        ++i;
      } while (i < n && depth > 0);
      id = "<html>";
      skip_next_id = true;  // HTML strings are only ever labels here
    } else if (is_id_start(c)) {
      while (i < n && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' ||
                       static_cast<unsigned char>(text[i]) >= 0x80 || text[i] == '.' ||
                       (text[i] == '-' && i == position)))
        ++i;
      id = text.substr(position, i - position);
      std::string lower = id;
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (lower == "graph" || lower == "digraph" || lower == "subgraph") {
        skip_next_id = true;
        continue;
      }
      if (lower == "node" || lower == "edge" || lower == "strict") continue;
    } else {
      ++i;
      if (c == '[') ++bracket_depth;
      if (c == ']') --bracket_depth;
      if (c == '{') skip_next_id = false;
      previous_punct = std::string(1, static_cast<char>(c));
      if (c == '=' || c == ':') skip_next_id = true;
      continue;
    }
    // An id followed by '=' is an attribute name.
    std::size_t j = i;
    while (j < n && std::isspace(static_cast<unsigned char>(text[j]))) ++j;
    const bool attribute_name = j < n && text[j] == '=';
    if (bracket_depth > 0 || skip_next_id || attribute_name) {
      skip_next_id = attribute_name;  // the value after '=' is skipped too
      continue;
    }
    first.emplace(id, position);
  }
  return first;
}

}  // namespace

InputError::InputError(std::string source, int line, const std::string& problem)
    : std::runtime_error(format_input_error(source, line, problem)),
      source_(std::move(source)),
      line_(line) {}

int Digraph::add_node(const std::string& name) {
  if (index_.count(name)) throw std::invalid_argument("duplicate node name '" + name + "'");
  const int v = static_cast<int>(boost::add_vertex(DigraphNode{name}, graph_));
  index_.emplace(name, v);
  return v;
}

void Digraph::add_edge(int from, int to) {
  boost::add_edge(from, to, graph_);
  edges_.emplace_back(from, to);
}

std::optional<int> Digraph::find(const std::string& name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> Digraph::parents(int v) const {
  std::vector<int> result;
  for (auto [it, end] = boost::in_edges(v, graph_); it != end; ++it)
    result.push_back(static_cast<int>(boost::source(*it, graph_)));
  return result;
}

std::vector<int> Digraph::children(int v) const {
  std::vector<int> result;
  for (auto [it, end] = boost::out_edges(v, graph_); it != end; ++it)
    result.push_back(static_cast<int>(boost::target(*it, graph_)));
  return result;
}

std::optional<std::string> Digraph::first_problem() const {
  if (node_count() == 0) return "empty graph: the digraph has no nodes";
  std::set<Edge> seen;
  for (const Edge& e : edges_) {
    if (e.first == e.second) return "self-loop at node '" + name(e.first) + "'";
    if (!seen.insert(e).second)
      return "duplicate edge '" + name(e.first) + "' -> '" + name(e.second) + "'";
  }
  return std::nullopt;
}

Digraph parse_dot(const std::string& text, const std::string& source) {
  DotSink sink;
  try {
    // The engine behind boost::read_graphviz, fed to a sink that keeps edges in file order (the
    // dynamic_properties front end would hand nodes and edges back sorted by name).
    if (!boost::detail::graph::read_graphviz_new(text, &sink))
      throw InputError(source, 0, "not a DOT digraph");
  } catch (const boost::undirected_graph_error&) {
    throw InputError(source, 0, "undirected graph: skograph needs a DOT 'digraph' (edges '->')");
  } catch (const boost::bad_graphviz_syntax& e) {
    std::string what = e.what();
    while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
    throw InputError(source, 0, "malformed DOT: " + what);
  } catch (const boost::graph_exception& e) {
    throw InputError(source, 0, std::string("malformed DOT: ") + e.what());
  }
  if (sink.nodes.empty()) throw InputError(source, 0, "empty graph: the digraph has no nodes");

  // Nodes in order of first appearance in the text.
  const std::unordered_map<std::string, std::size_t> first = first_appearance(text);
  std::vector<std::string> names = sink.nodes;
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    const auto ia = first.find(a), ib = first.find(b);
    const std::size_t pa = ia == first.end() ? SIZE_MAX : ia->second;
    const std::size_t pb = ib == first.end() ? SIZE_MAX : ib->second;
    return pa < pb;
  });
  Digraph graph;
  for (const std::string& name : names) graph.add_node(name);
  std::set<Edge> seen;
  for (const auto& [from, to] : sink.edges) {
    const Edge e{*graph.find(from), *graph.find(to)};
    if (e.first == e.second)
      throw InputError(source, find_edge_line(text, from, to, 1),
                       "self-loop at node '" + from + "'");
    if (!seen.insert(e).second)
      throw InputError(source, find_edge_line(text, from, to, 2),
                       "duplicate edge '" + from + "' -> '" + to + "'");
    graph.add_edge(e.first, e.second);
  }
  return graph;
}

Digraph read_dot(std::istream& in, const std::string& source) {
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(source, 0, "cannot read the file");
  return parse_dot(text.str(), source);
}

Digraph read_dot_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "cannot open the file (missing or unreadable)");
  return read_dot(in, path);
}

void write_dot(std::ostream& out, const Digraph& graph, const std::string& graph_name) {
  out << "digraph " << quoted(graph_name) << " {\n";
  for (int v = 0; v < graph.node_count(); ++v) out << "  " << quoted(graph.name(v)) << ";\n";
  for (const Edge& e : graph.edges())
    out << "  " << quoted(graph.name(e.first)) << " -> " << quoted(graph.name(e.second)) << ";\n";
  out << "}\n";
}

}  // namespace skograph
