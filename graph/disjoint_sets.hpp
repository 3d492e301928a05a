// Union-find over indices 0..n-1 (the graph layer's own; not installed): link[a] == a marks a
// set's representative.
#pragma once

#include <vector>

namespace skograph::graph_detail {

// The representative of a's set, halving the path on the way.
inline int find_set(std::vector<int>& link, int a) {
  while (link[a] != a) a = link[a] = link[link[a]];
  return a;
}

}  // namespace skograph::graph_detail
