#!/usr/bin/python3
"""A state sweep over Dask: forward dynamics of a robot at many states, in blocks of rows on the
workers of a Dask cluster, each block one batch call of skograph (C++, no GIL). The model pickles
(it is sent as its mechanism and rebuilt on each worker, which needs no file), so the same code
runs on a LocalCluster, on a cluster of machines, or under Ray/multiprocessing.

    PYTHONPATH=build/python /usr/bin/python3 examples/python/dask_sweep.py \
        examples/models/humanoid.yaml --states 200000 --workers 2

Prints the sweep's size and time, and checks it against the single-process batch call.
"""
import argparse
import time

import dask.array as da
import numpy as np
from dask.distributed import Client, LocalCluster

import skograph


def sweep_states(dofs, states, seed=0):
    """Random states (one per row): q, qd, tau uniform in [-1, 1]."""
    rng = np.random.default_rng(seed)
    return (rng.uniform(-1, 1, (states, dofs)), rng.uniform(-1, 1, (states, dofs)),
            rng.uniform(-1, 1, (states, dofs)))


def forward_dynamics_over_dask(model, q, qd, tau, block_rows=10000):
    """qdd for every row, computed block by block on the cluster's workers."""
    chunks = (block_rows, model.dof_count)
    Q, QD, TAU = (da.from_array(x, chunks=chunks) for x in (q, qd, tau))
    return da.map_blocks(lambda a, b, c: model.forward_dynamics(a, b, c), Q, QD, TAU,
                         dtype=float).compute()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model")
    parser.add_argument("--states", type=int, default=100000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--block-rows", type=int, default=10000)
    args = parser.parse_args()

    model = skograph.load_model(args.model)
    q, qd, tau = sweep_states(model.dof_count, args.states)
    # Loopback only: the workers are processes of this machine.
    with LocalCluster(n_workers=args.workers, threads_per_worker=1, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster):
        start = time.perf_counter()
        qdd = forward_dynamics_over_dask(model, q, qd, tau, args.block_rows)
        seconds = time.perf_counter() - start
    reference = model.forward_dynamics(q, qd, tau)
    same = np.array_equal(qdd, reference)
    print(f"{args.states} states of {model.file} ({model.dof_count} dofs) on {args.workers} "
          f"workers: {seconds:.2f} s; same as the single-process batch: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
