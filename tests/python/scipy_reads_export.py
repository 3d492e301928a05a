#!/usr/bin/env python3
"""`skograph export` read by SciPy's own Matrix Market reader.

Usage: scipy_reads_export.py SKOGRAPH_BINARY SOURCE_DIR SCRATCH_DIR

For each example model the exported M, L, P, E_A and A are read with scipy.io.mmread and checked
against references that do not go through skograph's Matrix Market code:
  - M against the "M" (trees) or "M_reduced" (closed chains) of `skograph dynamics --json`, which
    comes from the dense composite-inertia path of the rigid layer;
  - L L' = P M P' (P from P.txt, 1-based) with L lower triangular;
  - A (I - E_A) = I (part I Lemma 4).
Exit status 0 when every check holds, 1 with one line per failure otherwise.
"""
import json
import os
import subprocess
import sys

import numpy as np
import scipy.io
import scipy.sparse


def run(arguments):
    result = subprocess.run(arguments, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(arguments)}: exit {result.returncode}: {result.stderr.strip()}")
    return result.stdout


def relative_error(computed, reference):
    return np.linalg.norm(computed - reference) / max(np.linalg.norm(reference), 1e-300)


def check_model(binary, models, scratch, model_file, state_file, closed):
    failures = []
    name = os.path.splitext(model_file)[0]
    folder = os.path.join(scratch, name)
    os.makedirs(folder, exist_ok=True)
    paths = {key: os.path.join(folder, file) for key, file in
             [("mass", "M.mtx"), ("factor", "L.mtx"), ("perm", "P.txt"), ("kernel", "E.mtx"),
              ("resolvent", "A.mtx")]}
    model = os.path.join(models, model_file)
    state = os.path.join(models, state_file)
    export = [binary, "export", model, "--state", state]
    for key, path in paths.items():
        export += ["--" + key, path]
    run(export)
    dynamics = json.loads(run([binary, "dynamics", model, "--state", state, "--json"]))
    reference = np.array(dynamics["M_reduced" if closed else "M"], dtype=float)

    # The header SciPy reports: coordinate, real, symmetric for M, general for the others.
    rows, cols, entries, layout, field, symmetry = scipy.io.mminfo(paths["mass"])
    if (layout, field, symmetry) != ("coordinate", "real", "symmetric"):
        failures.append(f"{name}: M.mtx mminfo {layout} {field} {symmetry}")
    mass = scipy.io.mmread(paths["mass"]).toarray()  # mmread expands the symmetric half
    if mass.shape != reference.shape:
        failures.append(f"{name}: M is {mass.shape}, dynamics says {reference.shape}")
        return failures
    if relative_error(mass, reference) > 1e-10:
        failures.append(f"{name}: M differs from dynamics --json by {relative_error(mass, reference):.3g}")

    factor = scipy.io.mmread(paths["factor"]).toarray()
    with open(paths["perm"]) as perm_file:
        perm = [int(line) - 1 for line in perm_file if line.strip()]  # P.txt is 1-based
    if sorted(perm) != list(range(mass.shape[0])):
        failures.append(f"{name}: P.txt is not a 1-based permutation of 1..{mass.shape[0]}")
        return failures
    if np.any(np.triu(factor, 1) != 0):
        failures.append(f"{name}: L.mtx is not lower triangular")
    permuted = mass[np.ix_(perm, perm)]
    if relative_error(factor @ factor.T, permuted) > 1e-12:
        failures.append(f"{name}: L L' differs from P M P' by {relative_error(factor @ factor.T, permuted):.3g}")

    kernel = scipy.io.mmread(paths["kernel"])
    resolvent = scipy.io.mmread(paths["resolvent"])
    if not (scipy.sparse.issparse(kernel) and scipy.sparse.issparse(resolvent)):
        failures.append(f"{name}: E.mtx or A.mtx did not read as a sparse (coordinate) matrix")
    identity = np.eye(kernel.shape[0])
    product = resolvent.toarray() @ (identity - kernel.toarray())
    if np.linalg.norm(product - identity) > 1e-10:
        failures.append(f"{name}: A (I - E_A) differs from I by {np.linalg.norm(product - identity):.3g}")
    return failures


def main():
    if len(sys.argv) != 4:
        print(__doc__.splitlines()[2], file=sys.stderr)
        return 2
    binary, source, scratch = sys.argv[1:]
    models = os.path.join(source, "examples", "models")
    cases = [("arm7.urdf", "arm7_state.json", False), ("humanoid.yaml", "humanoid_state.json", False),
             ("space_arm.urdf", "space_arm_state.json", False),
             ("fourbar_chain.yaml", "fourbar_chain_state.json", True),
             ("suspension.yaml", "suspension_state.json", True)]
    failures = []
    for model_file, state_file, closed in cases:
        failures += check_model(binary, models, scratch, model_file, state_file, closed)
    for failure in failures:
        print(failure)
    print(f"scipy {scipy.__version__}: {len(cases)} exports read, {len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
