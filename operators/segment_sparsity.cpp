#include "skograph/operators/segment_sparsity.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace skograph {
namespace {

// Segment i is a strict ancestor of segment j: its tip is an ancestor of j's base.
bool segment_is_ancestor(const Forest& forest, int i, int j) {
  return i != j && forest.is_ancestor(forest.segment_tip(i), forest.segment_base(j));
}

// Builds a pattern from per-column row lists produced by `rows_of(col, out)`.
template <typename RowsOf>
SparsityPattern build_pattern(int rows, int cols, RowsOf rows_of) {
  SparsityPattern pattern;
  pattern.rows = rows;
  pattern.cols = cols;
  pattern.column_start.assign(1, 0);
  pattern.column_start.reserve(cols + 1);
  std::vector<int> column;
  for (int c = 0; c < cols; ++c) {
    column.clear();
    rows_of(c, column);
    std::sort(column.begin(), column.end());
    pattern.row_index.insert(pattern.row_index.end(), column.begin(), column.end());
    pattern.column_start.push_back(static_cast<int>(pattern.row_index.size()));
  }
  return pattern;
}

// Expands a node pattern by a block layout; diagonal node blocks become identity patterns when
// `identity_diagonal` is set.
SparsityPattern expand(const SparsityPattern& nodes, const BlockLayout& layout,
                       bool identity_diagonal) {
  if (layout.count() != nodes.cols)
    throw std::invalid_argument("sparsity pattern: the layout has " +
                                std::to_string(layout.count()) + " blocks for " +
                                std::to_string(nodes.cols) + " nodes");
  std::vector<int> node_of(layout.total());
  for (int k = 0; k < layout.count(); ++k)
    for (int r = 0; r < layout.dim(k); ++r) node_of[layout.offset(k) + r] = k;
  return build_pattern(layout.total(), layout.total(), [&](int c, std::vector<int>& out) {
    const int j = node_of[c];
    for (int e = nodes.column_start[j]; e < nodes.column_start[j + 1]; ++e) {
      const int i = nodes.row_index[e];
      if (identity_diagonal && i == j) {
        out.push_back(c);
      } else {
        for (int r = 0; r < layout.dim(i); ++r) out.push_back(layout.offset(i) + r);
      }
    }
  });
}

}  // namespace

// Part II Eq. 61-62.
SegmentBlock kernel_segment_block(const Forest& forest, int i, int j) {
  if (i == j)
    return forest.segment_end(i) - forest.segment_begin(i) > 1 ? SegmentBlock::kSegment
                                                               : SegmentBlock::kZero;
  return forest.segment_parent(j) == i ? SegmentBlock::kConnector : SegmentBlock::kZero;
}

// Part II Eq. 63.
SegmentBlock resolvent_segment_block(const Forest& forest, int i, int j) {
  if (i == j) return SegmentBlock::kSegment;
  return segment_is_ancestor(forest, i, j) ? SegmentBlock::kRelated : SegmentBlock::kZero;
}

// Part II section 7.4 (Fig. 6).
SegmentBlock mass_segment_block(const Forest& forest, int i, int j) {
  if (i == j) return SegmentBlock::kSegment;
  return segment_is_ancestor(forest, i, j) || segment_is_ancestor(forest, j, i)
             ? SegmentBlock::kRelated
             : SegmentBlock::kZero;
}

// Part II section 7 (Eq. 61-63, Fig. 6) for every segment pair.
SegmentSparsity segment_sparsity(const Forest& forest) {
  SegmentSparsity result;
  const int s = forest.segment_count();
  result.segment_count = s;
  const std::size_t size = static_cast<std::size_t>(s) * s;
  result.kernel.resize(size);
  result.resolvent.resize(size);
  result.mass.resize(size);
  for (int i = 0; i < s; ++i)
    for (int j = 0; j < s; ++j) {
      const std::size_t index = static_cast<std::size_t>(i) * s + j;
      result.kernel[index] = kernel_segment_block(forest, i, j);
      result.resolvent[index] = resolvent_segment_block(forest, i, j);
      result.mass[index] = mass_segment_block(forest, i, j);
    }
  return result;
}

bool SparsityPattern::contains(int row, int col) const {
  const auto begin = row_index.begin() + column_start[col];
  const auto end = row_index.begin() + column_start[col + 1];
  return std::binary_search(begin, end, row);
}

// Part I Eq. 13.
SparsityPattern kernel_node_pattern(const Forest& forest) {
  return build_pattern(forest.size(), forest.size(), [&](int k, std::vector<int>& out) {
    if (!forest.is_base(k)) out.push_back(forest.parent(k));
  });
}

// Part I Lemma 5, Eq. 18.
SparsityPattern resolvent_node_pattern(const Forest& forest) {
  return build_pattern(forest.size(), forest.size(), [&](int j, std::vector<int>& out) {
    for (int i = j; i != Forest::kNone; i = forest.parent(i)) out.push_back(i);
  });
}

// Part II Eq. 17 and section 7.4: ancestors-or-self and descendants.
SparsityPattern mass_node_pattern(const Forest& forest) {
  const auto order = forest.post_order();
  return build_pattern(forest.size(), forest.size(), [&](int j, std::vector<int>& out) {
    for (int i = forest.parent(j); i != Forest::kNone; i = forest.parent(i)) out.push_back(i);
    // The subtree of j is the post-order range ending at j.
    const int last = forest.post_index(j);
    for (int position = last - forest.subtree_size(j) + 1; position <= last; ++position)
      out.push_back(order[position]);
  });
}

// Part I Eq. 8: every entry of a weight block.
SparsityPattern kernel_scalar_pattern(const Forest& forest, const BlockLayout& node) {
  return expand(kernel_node_pattern(forest), node, false);
}

// Part I Eq. 18: identity diagonal blocks, dense path products.
SparsityPattern resolvent_scalar_pattern(const Forest& forest, const BlockLayout& node) {
  return expand(resolvent_node_pattern(forest), node, true);
}

// Part II section 7.4: dense blocks for related node pairs, in the hinge layout.
SparsityPattern mass_scalar_pattern(const Forest& forest, const BlockLayout& hinge) {
  return expand(mass_node_pattern(forest), hinge, false);
}

}  // namespace skograph
