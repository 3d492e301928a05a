// Wall time per call of a model's algorithms, as `skograph bench` reports it: the world-frame
// recursions every model has (id, fd, mass, fd-crba), in minimal coordinates for closed chains,
// and on trees the serial-chain paper's families on the SKO model.
#pragma once

#include <string>
#include <vector>

#include "skograph/model/constraints.hpp"
#include "skograph/model/model.hpp"
#include "skograph/rigid/lanes.hpp"

namespace skograph {

// Every algorithm time_algorithm takes, in the order the usage lists them:
//   id, fd, mass, fd-crba  inverse dynamics, forward dynamics (articulated bodies; closed chains
//                 through each aggregate's member tree, or --solver multipliers), M (closed chains:
//                 M_R = X* M X), and forward dynamics by M, C and a dense Cholesky solve;
//   trees only, each call from q and qd through the kinematics and the SKO model:
//   id-sko        Newton-Euler on the SKO model (part II Algorithm 3.1)
//   id-composite  composite-body inverse dynamics (serial-chain paper Lemma 3.2)
//   mass-sko, mass-direct, mass-symmetry   M by Algorithm 4.2, the direct and the symmetry-based
//                 methods (serial-chain paper section 3)
//   fd-direct, fd-symmetry  O(N^3): that M, C by Newton-Euler, a dense Cholesky solve
//   fd-sko-crba   O(N^3): forward_dynamics_cholesky (Algorithm 4.2's M)
//   fd-innovations  O(N^2): the innovations factors and triangular solves (section 4)
//   fd-cg, fd-pcg   O(N^2): conjugate gradients on M p by Newton-Euler, plain and preconditioned
//   fd-sko        O(N): the articulated-body algorithm on the SKO model (Algorithm 6.1)
//   fd-base-invariant, fd-base-invariant-2  the free-flying paper's Algorithm 3.3 on one or two
//                 threads (free-flying trees)
const std::vector<std::string>& timed_algorithms();

struct Timing {
  double ns_per_call = 0.0;  // the median batch's time per call
  int dofs = 0;
  int independent = 0;        // closed chains: the independent coordinates (trees: dofs)
  Simd simd = Simd::kScalar;  // a batch's lanes (model/batch.hpp), kScalar state by state
};

// Times `algorithm` at a generic state (every coordinate, rate and input nonzero and distinct;
// closed chains assembled from it): `repeats` batches of calls long enough for the clock (at
// least 0.2 ms each), the median batch divided by its size. UsageError for an algorithm the model
// cannot run (named with the model's file), a model without dofs, or dynamics that are not
// finite.
Timing time_algorithm(const Model& model, const std::string& algorithm,
                      ClosedChainSolver solver = ClosedChainSolver::kEmbedding, int repeats = 31);

}  // namespace skograph

namespace skograph {

// Wall time per state of a batch (model/batch.hpp) of `batch` distinct states (a generic state
// moved by random amounts, a fixed seed; closed chains closed first) on `threads` threads:
// algorithm id, fd or mass (the tree's M, as mass_matrix_batch gives it), `repeats` runs of the
// whole batch, the median run divided by `batch`. UsageError as time_algorithm, and for another
// algorithm or a batch or thread count below 1. `simd` as BatchOptions::simd.
Timing time_batch(const Model& model, const std::string& algorithm, long batch, int threads,
                  int repeats = 31, Simd simd = Simd::kAuto);

}  // namespace skograph
