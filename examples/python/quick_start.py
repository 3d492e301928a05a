#!/usr/bin/python3
"""skograph's first minutes from Python: load a robot, its dynamics, the sparse mass matrix and its
fill-free factor, a closed chain in its actuated coordinates, a free flyer from another base body,
and a picture. Run from the repository root:

    PYTHONPATH=build/python /usr/bin/python3 examples/python/quick_start.py

(after `cmake --install build`, without PYTHONPATH). Each step prints one line.
"""
import os
import tempfile

import numpy as np

import skograph

# A robot: its dofs in the file's order, the order of every vector below.
model = skograph.load_model("examples/models/humanoid.yaml")
n = model.dof_count
rng = np.random.default_rng(0)
q, qd, tau = rng.uniform(-0.5, 0.5, n), rng.uniform(-1, 1, n), rng.uniform(-1, 1, n)
print(f"{model.file}: {n} dofs ({model.dofs[0]}, {model.dofs[1]}, ...)")

# Dynamics: one state, or many (one per row, C++ on several threads without the GIL).
qdd = model.forward_dynamics(q, qd, tau)
assert np.allclose(model.inverse_dynamics(q, qd, qdd), tau)
Q, QD, TAU = (rng.uniform(-0.5, 0.5, (1000, n)) for _ in range(3))
QDD = model.forward_dynamics(Q, QD, TAU, threads=2)
print(f"forward dynamics: one state and a batch of {QDD.shape[0]}; inverse dynamics gives tau back")

# The mass matrix, sparse, and its Cholesky factor in the canonical order: no fill (part I).
M = model.sparse_mass_matrix(q)  # scipy.sparse.csc_matrix
L, perm = model.factor(q, ordering="canonical")
assert np.allclose((L @ L.T).toarray(), M.toarray()[np.ix_(perm, perm)])
print(f"M: {M.nnz} stored entries; its factor L: {L.nnz} (the lower triangle of M: no fill)")

# A closed chain in its actuated coordinates: the Stewart platform driven by its six legs.
stewart = skograph.load_model("examples/models/stewart_platform.yaml",
                              independent=[f"leg{i}" for i in range(1, 7)])
state = stewart.read_state("examples/models/stewart_platform_state.json")
q6, qd6, tau6 = state["q"], state["qd"], state["tau"]
forces = stewart.constraint_forces(q6, qd6, tau6)  # through every loop joint
J_R = stewart.reduced_jacobian(q6, "platform")  # the platform's twist per leg rate
M_R = stewart.reduced_mass_matrix(q6)  # the mass matrix in the six leg coordinates
print(f"Stewart platform: {len(forces['loop_forces'])} loop forces, J_R {J_R.shape}, "
      f"M_R {M_R.shape} in {', '.join(stewart.close(q6, qd6)[2])}")

# A free flyer seen from another base body: every link keeps its motion (free-flying paper).
space = skograph.load_model("examples/models/space_arm.urdf")
tip = space.with_base("s_link6")
m = space.dof_count
converted = space.convert_state(tip, np.zeros(m), np.full(m, 0.1), tau=np.full(m, 0.5))
assert np.allclose(tip.frame_pose(converted["q"], "bus"), space.frame_pose(np.zeros(m), "bus"))
print(f"space arm from s_link6: dofs {tip.dofs[0]} ... {tip.dofs[-1]}, the bus where it was")

# A picture: the humanoid's mass-matrix sparsity (needs the Graphviz/cairo part: have_viz).
if skograph.have_viz:
    out = os.path.join(tempfile.mkdtemp(), "humanoid-M.svg")
    skograph.render("examples/models/humanoid.yaml", out, what="sparsity", matrix="M")
    print(f"picture: {out} ({os.path.getsize(out)} bytes)")
