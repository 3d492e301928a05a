#!/usr/bin/python3
"""Many states at once: a 2-D array is a batch (one state per row) that skograph runs in C++
without the GIL, on as many threads as asked, with the result of a loop of single calls.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/batch_threads.py \
        examples/models/humanoid.yaml --states 20000 --threads 2

Prints the time per state of a Python loop, of one batch call and of the batch on threads.
"""
import argparse
import time

import numpy as np

import skograph


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--states", type=int, default=20000)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args()

    model = skograph.load_model(args.model)
    rng = np.random.default_rng(1)
    Q, QD, TAU = (rng.uniform(-1, 1, (args.states, model.dof_count)) for _ in range(3))

    start = time.perf_counter()
    looped = np.array([model.forward_dynamics(q, qd, tau) for q, qd, tau in zip(Q, QD, TAU)])
    loop_time = time.perf_counter() - start
    start = time.perf_counter()
    batch = model.forward_dynamics(Q, QD, TAU)
    batch_time = time.perf_counter() - start
    start = time.perf_counter()
    threaded = model.forward_dynamics(Q, QD, TAU, threads=args.threads)
    threaded_time = time.perf_counter() - start

    # Each row is the same bits however many threads run. A tree's batch runs 4 or 8 states per
    # instruction in SIMD lanes: the single calls' results to rounding (bit for bit with the
    # environment variable SKOGRAPH_SIMD=scalar).
    assert np.array_equal(threaded, batch)
    assert np.allclose(batch, looped, rtol=0, atol=1e-9 * (1 + np.max(np.abs(looped))))
    per_state = 1e6 / args.states
    print(f"{model.file}: {args.states} states of {model.dof_count} dofs; forward dynamics per "
          f"state: Python loop {loop_time * per_state:.2f} us, batch {batch_time * per_state:.2f} "
          f"us, batch on {args.threads} threads {threaded_time * per_state:.2f} us")


if __name__ == "__main__":
    main()
