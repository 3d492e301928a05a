#include "skograph/graph/digraph.hpp"

#include "skograph/graph/text_input.hpp"

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdint>
#include <fstream>
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

}  // namespace

InputError::InputError(std::string source, int line, const std::string& problem)
    : Error(format_input_error(source, line, problem)), source_(std::move(source)), line_(line) {}

void Digraph::reserve(int nodes, int edges) {
  names_.reserve(static_cast<std::size_t>(nodes));
  in_degree_.reserve(static_cast<std::size_t>(nodes));
  out_degree_.reserve(static_cast<std::size_t>(nodes));
  index_.reserve(static_cast<std::size_t>(nodes));
  edges_.reserve(static_cast<std::size_t>(edges));
}

int Digraph::add_node(std::string name) {
  const int v = node_count();
  const auto [it, inserted] = index_.try_emplace(name, v);
  if (!inserted) throw std::invalid_argument("duplicate node name '" + printable(name) + "'");
  names_.push_back(std::move(name));
  in_degree_.push_back(0);
  out_degree_.push_back(0);
  return v;
}

void Digraph::add_edge(int from, int to) {
  edges_.emplace_back(from, to);
  ++out_degree_[from];
  ++in_degree_[to];
}

std::optional<int> Digraph::find(std::string_view name) const {
  const auto it = index_.find(name);
  if (it == index_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> Digraph::parents(int v) const {
  std::vector<int> result;
  for (const Edge& e : edges_)
    if (e.second == v) result.push_back(e.first);
  return result;
}

std::vector<int> Digraph::children(int v) const {
  std::vector<int> result;
  for (const Edge& e : edges_)
    if (e.first == v) result.push_back(e.second);
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

Digraph read_dot(std::istream& in, const std::string& source) {
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(source, 0, "cannot read the file");
  return parse_dot(text.str(), source);
}

Digraph read_dot_file(const std::string& path) {
  return parse_dot(read_file_bytes(path), path);
}

void write_dot(std::ostream& out, const Digraph& graph, const std::string& graph_name) {
  out << "digraph " << quoted(graph_name) << " {\n";
  for (int v = 0; v < graph.node_count(); ++v) out << "  " << quoted(graph.name(v)) << ";\n";
  for (const Edge& e : graph.edges())
    out << "  " << quoted(graph.name(e.first)) << " -> " << quoted(graph.name(e.second)) << ";\n";
  out << "}\n";
}

}  // namespace skograph
