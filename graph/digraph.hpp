// Digraph: a directed graph with named nodes on Boost.Graph (part I section 2), and DOT I/O.
//
// Nodes are numbered 0..n-1 in input order (users see 1-based numbers). Edges point from parent to
// child. Graphs are built once (pitfalls.md: with vecS, removing a vertex renumbers everything).
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace skograph {

struct DigraphNode {
  std::string name;
};

using BoostDigraph =
    boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, DigraphNode>;
using Edge = std::pair<int, int>;  // (parent, child) = (from, to)

// Bad input: names the source (file) and, where known, the 1-based line.
class InputError : public std::runtime_error {
 public:
  InputError(std::string source, int line, const std::string& problem);
  const std::string& source() const { return source_; }
  int line() const { return line_; }  // 0 when unknown
 private:
  std::string source_;
  int line_;
};

class Digraph {
 public:
  Digraph() = default;

  // Adds a node; names must be unique (std::invalid_argument otherwise).
  int add_node(const std::string& name);
  // Adds the edge from -> to. Self-loops and parallel edges are allowed here so that readers can
  // report them; validate() rejects them.
  void add_edge(int from, int to);

  int node_count() const { return static_cast<int>(boost::num_vertices(graph_)); }
  int edge_count() const { return static_cast<int>(edges_.size()); }
  const std::string& name(int v) const { return graph_[v].name; }
  std::optional<int> find(const std::string& name) const;
  // Edges in insertion order.
  const std::vector<Edge>& edges() const { return edges_; }
  int in_degree(int v) const { return static_cast<int>(boost::in_degree(v, graph_)); }
  int out_degree(int v) const { return static_cast<int>(boost::out_degree(v, graph_)); }
  std::vector<int> parents(int v) const;
  std::vector<int> children(int v) const;

  const BoostDigraph& boost_graph() const { return graph_; }

  // The problems that make a digraph unusable as a multibody digraph (part I section 2 assumes no
  // parallel edges; self-loops have no meaning): first one found, or nullopt.
  std::optional<std::string> first_problem() const;

 private:
  BoostDigraph graph_;
  std::vector<Edge> edges_;
  std::unordered_map<std::string, int> index_;
};

// Reads a Graphviz DOT digraph (boost::read_graphviz; attributes other than the node id are
// ignored). Throws InputError naming `source` on malformed text, an undirected graph, an empty
// graph, a self-loop or a parallel edge.
Digraph read_dot(std::istream& in, const std::string& source);
Digraph read_dot_file(const std::string& path);
Digraph parse_dot(const std::string& text, const std::string& source);
// Writes the digraph as DOT (node ids are the names, quoted).
void write_dot(std::ostream& out, const Digraph& graph, const std::string& graph_name = "G");

}  // namespace skograph
