// Digraph: a directed graph with named nodes (part I section 2; a Boost.Graph view in
// boost_digraph.hpp), and DOT I/O.
//
// Nodes are numbered 0..n-1 in input order (users see 1-based numbers). Edges point from parent to
// child. Graphs are built once (pitfalls.md: with vecS, removing a vertex renumbers everything).
#pragma once

#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "skograph/graph/error.hpp"
#include "skograph/graph/text_input.hpp"  // printable(), for the messages of every reader

namespace skograph {

using Edge = std::pair<int, int>;  // (parent, child) = (from, to)

// Bad input: names the source (file) and, where known, the 1-based line (graph/error.hpp).
class InputError : public Error {
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

  // Room for `nodes` nodes and `edges` edges (readers of large files call it once).
  void reserve(int nodes, int edges);
  // Adds a node; names must be unique (std::invalid_argument otherwise).
  int add_node(std::string name);
  // Adds the edge from -> to. Self-loops and parallel edges are allowed here so that readers can
  // report them; validate() rejects them.
  void add_edge(int from, int to);

  int node_count() const { return static_cast<int>(names_.size()); }
  int edge_count() const { return static_cast<int>(edges_.size()); }
  const std::string& name(int v) const { return names_[v]; }
  std::optional<int> find(std::string_view name) const;
  // Edges in insertion order.
  const std::vector<Edge>& edges() const { return edges_; }
  int in_degree(int v) const { return in_degree_[v]; }
  int out_degree(int v) const { return out_degree_[v]; }
  // Parents and children of v in edge order: O(E) each (the analyses use DigraphArrays).
  std::vector<int> parents(int v) const;
  std::vector<int> children(int v) const;

  // The problems that make a digraph unusable as a multibody digraph (part I section 2 assumes no
  // parallel edges; self-loops have no meaning): first one found, or nullopt.
  std::optional<std::string> first_problem() const;

 private:
  struct NameHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::vector<Edge> edges_;
  std::vector<int> in_degree_, out_degree_;
  std::unordered_map<std::string, int, NameHash, std::equal_to<>> index_;
};

// Reads a Graphviz DOT digraph (graph/dot_reader.cpp: a linear reader of the DOT language;
// attributes are read and ignored). Nodes are numbered in order of first appearance, edges kept
// in file order. Throws InputError naming `source` and the line on malformed text, an undirected
// graph, an empty graph, subgraphs nested deeper than 1000 levels, a self-loop or a parallel
// edge (merged in a `strict digraph`).
Digraph read_dot(std::istream& in, const std::string& source);
Digraph read_dot_file(const std::string& path);
Digraph parse_dot(const std::string& text, const std::string& source);
// Writes the digraph as DOT (node ids are the names, quoted).
void write_dot(std::ostream& out, const Digraph& graph, const std::string& graph_name = "G");

}  // namespace skograph
