// The mass matrix over W states at once by composite inertias (part II Algorithms 4.1-4.2), in
// world axes about the origin of each tree's base link (lane_world.hpp), where a composite inertia
// is the plain sum of its links' inertias and M(j, k) = H(j) R(k) H*(k) for j on k's path to the
// root needs no transform: one dot product of six-vectors per entry, where the link-frame
// recursion of the single call (rigid_body_mass_matrix.cpp) carries each column to every ancestor
// by a spatial transform. Included after lane_kernels.hpp by the per-instruction-set translation
// units.
#pragma once

#include "lane_world.hpp"

namespace skograph::lanes::SKOGRAPH_LANE_NS {
namespace {

// The per-lane state of the recursion: node k at work + 25 W k, its pose (R 9, l 3) and its
// composite inertia (13: m, h, J); dof i at work + 25 W nodes + 6 W i, its column of H*.
constexpr int kCompositeNode = 12 + 13, kCompositeDof = 6;
static_assert(mass_matrix_entries(1, 0) == kCompositeNode &&
              mass_matrix_entries(0, 1) == kCompositeDof);

// Parents first: each link's pose, its inertia and its joint's H* columns in world axes (the
// composite inertias start as the links' own); children first: R(k) is complete when k is
// reached, each column X = R(k) H*(k) gives M(k, k) = H(k) X and M(j, k) = H(j) X for every
// ancestor j, then R(k) joins its parent's. Entries of dofs on no common path are not written
// (they stay as they are: zero).
void mass_matrix(const TreeView& tree, const Block& block) noexcept {
  const long n = tree.dof_count;
  double* const nodes = block.work;
  double* const dofs = block.work + static_cast<long>(kCompositeNode) * W * tree.nodes;
  const auto node = [&](int k) { return nodes + static_cast<long>(kCompositeNode) * W * k; };
  const auto dof = [&](int i) { return dofs + static_cast<long>(kCompositeDof) * W * i; };
  for (int i = 0; i < tree.nodes; ++i) {
    const int k = tree.order[i], p = tree.parent[k];
    Rotation R;
    V3 l;
    world_pose(block, k, p < 0 ? nullptr : node(p), R, l);
    store_pose(R, l, node(k));
    store_inertia(world_inertia(tree, k, R, l), node(k) + 12 * W);
    for (int c = 0; c < tree.dofs[k]; ++c)
      store_column(world_hinge_column(tree.dofs[k], tree.hinge + 6 * k, c, R, l),
                   dof(tree.offset[k] + c));
  }
  // The upper triangle only, where LaneTree::mass_entries names the entry (whatever the dofs'
  // numbering: an ancestor's dofs come first in the model's own); the batch mirrors it.
  const auto put = [&](int row, int column, const L& value) {
    const int upper_row = row < column ? row : column, upper_column = row < column ? column : row;
    value.store_unaligned(block.mass + (upper_row * n + upper_column) * W);
  };
  for (int i = tree.nodes - 1; i >= 0; --i) {
    const int k = tree.order[i], p = tree.parent[k];
    const Inertia composite = load_inertia(node(k) + 12 * W);
    for (int c = 0; c < tree.dofs[k]; ++c) {
      const int column = tree.offset[k] + c;
      const Column X = column_of(times(composite, six_of(load_column(dof(column)))));
      for (int r = 0; r <= c; ++r)
        put(tree.offset[k] + r, column, dot(load_column(dof(tree.offset[k] + r)), X));
      for (int j = p; j >= 0; j = tree.parent[j])
        for (int r = 0; r < tree.dofs[j]; ++r)
          put(tree.offset[j] + r, column, dot(load_column(dof(tree.offset[j] + r)), X));
    }
    if (p < 0) continue;
    Inertia parent = load_inertia(node(p) + 12 * W);
    parent.mass = parent.mass + composite.mass;
    parent.first_moment = parent.first_moment + composite.first_moment;
    parent.rotational = {parent.rotational.c0 + composite.rotational.c0,
                         parent.rotational.c1 + composite.rotational.c1,
                         parent.rotational.c2 + composite.rotational.c2};
    store_inertia(parent, node(p) + 12 * W);
  }
}

}  // namespace
}  // namespace skograph::lanes::SKOGRAPH_LANE_NS
