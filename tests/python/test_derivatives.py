#!/usr/bin/python3
"""The derivatives, the linearization and the tangent from Python: against the command line's
`derivatives --json` and `linearize --json` on the same files, against central differences with
Richardson extrapolation of the module's own forward and inverse dynamics along its integrate (a
floating base with spherical joints), batches with threads equal to single calls, and
skograph.Error with the command line's words.

usage: SKOGRAPH_CLI=build/bin/skograph PYTHONPATH=build/python test_derivatives.py SOURCE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

import skograph

SOURCE = sys.argv[1]
CLI = os.environ["SKOGRAPH_CLI"]
MODELS = os.path.join(SOURCE, "examples", "models")

PENDULUM = """name: pendulum
links:
  - {name: bob, mass: 2, com: [0, 0, -0.3], inertia: {ixx: 0.05, iyy: 0.05, izz: 0.05}}
joints:
  - {name: pivot, type: continuous, parent: world, child: bob, axis: [0, 1, 0]}
"""


def cli_json(*arguments):
    run = subprocess.run([CLI, *arguments, "--json"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def cli_error(*arguments):
    run = subprocess.run([CLI, *arguments], capture_output=True, text=True, check=False)
    assert run.returncode == 2, run.stderr
    return run.stderr.strip()


def richardson(function, n, step=1e-3):
    """Column j: (4 D(h/2) - D(h)) / 3 of central differences D along e_j; and its own error
    estimate (Frobenius norm of the difference of two such extrapolations)."""
    def central(j, h):
        return (function(j, h) - function(j, -h)) / (2 * h)
    fine, coarse = [], []
    for j in range(n):
        d1, d2, d4 = central(j, step), central(j, step / 2), central(j, step / 4)
        coarse.append((4 * d2 - d1) / 3)
        fine.append((4 * d4 - d2) / 3)
    fine, coarse = np.array(fine).T, np.array(coarse).T
    return fine, np.linalg.norm(fine - coarse)


class Derivatives(unittest.TestCase):
    def test_against_the_command_line(self):
        model_file = os.path.join(MODELS, "arm7.urdf")
        state_file = os.path.join(MODELS, "arm7_state.json")
        report = cli_json("derivatives", model_file, "--state", state_file)
        model = skograph.load_model(model_file)
        state = model.read_state(state_file)
        dqdd_dq, dqdd_dqd, dqdd_dtau = model.forward_dynamics_derivatives(
            state["q"], state["qd"], state["tau"])
        dtau_dq, dtau_dqd, mass = model.inverse_dynamics_derivatives(
            state["q"], state["qd"], state["qdd"])
        for name, value in [("dqdd_dq", dqdd_dq), ("dqdd_dqd", dqdd_dqd),
                            ("dqdd_dtau", dqdd_dtau), ("dtau_dq", dtau_dq),
                            ("dtau_dqd", dtau_dqd), ("M", mass)]:
            np.testing.assert_allclose(value, np.array(report[name]), rtol=0, atol=1e-12,
                                       err_msg=name)

    def test_floating_base_against_richardson(self):
        model = skograph.load_model(os.path.join(MODELS, "humanoid.yaml"))
        n = len(model.dofs)
        rng = np.random.default_rng(3)
        q, qd, tau, qdd = (rng.uniform(-0.5, 0.5, n) for _ in range(4))
        dqdd_dq, dqdd_dqd, _ = model.forward_dynamics_derivatives(q, qd, tau)
        dtau_dq, _, _ = model.inverse_dynamics_derivatives(q, qd, qdd)
        unit = np.eye(n)
        for computed, function in [
                (dqdd_dq, lambda j, h: model.forward_dynamics(
                    model.integrate(q, unit[j], h), qd, tau)),
                (dqdd_dqd, lambda j, h: model.forward_dynamics(q, qd + h * unit[j], tau)),
                (dtau_dq, lambda j, h: model.inverse_dynamics(
                    model.integrate(q, unit[j], h), qd, qdd))]:
            reference, estimate = richardson(function, n)
            scale = max(np.linalg.norm(reference), 1.0)
            self.assertLessEqual(np.linalg.norm(computed - reference) / scale,
                                 max(1e-7, 10 * estimate / scale))

    def test_batches_equal_single_calls(self):
        model = skograph.load_model(os.path.join(MODELS, "humanoid.yaml"))
        n = len(model.dofs)
        rng = np.random.default_rng(5)
        q, qd, tau = (rng.uniform(-0.5, 0.5, (5, n)) for _ in range(3))
        batch = model.forward_dynamics_derivatives(q, qd, tau, threads=3)
        inverse = model.inverse_dynamics_derivatives(q, qd, tau, threads=2)
        self.assertEqual(batch[0].shape, (5, n, n))
        self.assertEqual(inverse[0].shape, (5, n, n))
        # A tree's derivative batches run in SIMD lanes (where the CPU has them): the single
        # calls' to rounding (forward dynamics' times cond(M)), the same bits on any number of
        # threads.
        for k, matrix in enumerate(model.forward_dynamics_derivatives(q, qd, tau, threads=1)):
            np.testing.assert_array_equal(matrix, batch[k])
        for k, matrix in enumerate(model.inverse_dynamics_derivatives(q, qd, tau, threads=1)):
            np.testing.assert_array_equal(matrix, inverse[k])
        for row in range(5):
            single = model.forward_dynamics_derivatives(q[row], qd[row], tau[row])
            single_inverse = model.inverse_dynamics_derivatives(q[row], qd[row], tau[row])
            condition = np.linalg.cond(single_inverse[2])
            for k in range(3):
                np.testing.assert_allclose(batch[k][row], single[k], rtol=0,
                                           atol=1e-13 * condition * np.abs(single[k]).max())
                np.testing.assert_allclose(inverse[k][row], single_inverse[k], rtol=0,
                                           atol=1e-13 * np.abs(single_inverse[k]).max())
        none = np.zeros((0, n))
        for call in (model.forward_dynamics_derivatives, model.inverse_dynamics_derivatives):
            self.assertEqual([m.shape for m in call(none, none, none)], [(0, n, n)] * 3)
        moved = model.integrate(q, qd, 0.3, threads=2)
        np.testing.assert_allclose(model.integrate(q, model.difference(q, moved)), moved,
                                   atol=1e-12)

    def test_linearize_hold_and_rest_against_the_command_line(self):
        with tempfile.TemporaryDirectory() as folder:
            model_file = os.path.join(folder, "pendulum.yaml")
            state_file = os.path.join(folder, "state.json")
            with open(model_file, "w", encoding="utf-8") as out:
                out.write(PENDULUM)
            with open(state_file, "w", encoding="utf-8") as out:
                out.write('{"q": {"pivot": 0.4}}')
            model = skograph.load_model(model_file)
            q = np.array([0.4])
            report = cli_json("linearize", model_file, "--state", state_file, "--dt", "0.01")
            lin = model.linearize(q, dt=0.01)
            self.assertEqual(list(lin.keys()), list(report.keys()))
            for key in ["A", "B", "A_d", "B_d"]:
                np.testing.assert_allclose(lin[key], np.array(report[key]), atol=1e-12)
            np.testing.assert_allclose(lin["eigenvalues"],
                                       [complex(*pair) for pair in report["eigenvalues"]],
                                       atol=1e-12)
            omega = np.sqrt(2 * 9.81 * 0.3 / (0.05 + 2 * 0.09))
            self.assertAlmostEqual(lin["modes"][0]["frequency_hz"],
                                   omega * np.sqrt(np.cos(0.4)) / (2 * np.pi), places=12)
            held = model.hold(q)
            self.assertAlmostEqual(held["tau_hold"]["pivot"], 2 * 9.81 * 0.3 * np.sin(0.4),
                                   places=12)
            self.assertEqual(held["hold_residual"], 0.0)
            rest = model.rest(q)
            self.assertLess(abs(rest["q_rest"][0]), 1e-9)
            self.assertIs(rest["stable"], True)
            with self.assertRaises(skograph.Error) as caught:
                model.linearize(q, inputs=["elbow"])
            self.assertIn(str(caught.exception),
                          cli_error("linearize", model_file, "--inputs", "elbow"))

    def test_closed_chain_equals_the_command_line(self):
        """The four-bar's derivatives in its independent coordinates, the loop and coupling forces'
        and the linearization equal `derivatives --json` and `linearize --json` at the same state;
        a batch of the same state twice gives the single call's."""
        model_file = os.path.join(MODELS, "fourbar.yaml")
        state_file = os.path.join(MODELS, "fourbar_state.json")
        model = skograph.load_model(model_file)
        report = cli_json("derivatives", model_file, "--state", state_file)
        q, qd = np.array(report["q"]), np.array(report["qd"])
        tau = np.array(report["tau"])
        with open(state_file, encoding="utf-8") as handle:
            gravity = json.load(handle).get("gravity")
        extra = {} if gravity is None else {"gravity": np.array(gravity)}
        r = len(report["independent"])
        n = len(report["dofs"])
        forward = model.forward_dynamics_derivatives(q, qd, tau, **extra)
        self.assertEqual([m.shape for m in forward], [(r, r), (r, r), (r, n)])
        for mine, key in zip(forward, ("dqdd_dq", "dqdd_dqd", "dqdd_dtau")):
            np.testing.assert_allclose(mine, np.array(report[key]), rtol=1e-12, atol=1e-12)
        qdd = np.zeros(n)
        inverse = model.inverse_dynamics_derivatives(q, qd, qdd, **extra)
        self.assertEqual([m.shape for m in inverse], [(r, r)] * 3)
        np.testing.assert_allclose(inverse[2], np.array(report["M_reduced"]), rtol=1e-12,
                                   atol=1e-12)
        self.assertEqual(list(model.close(q, qd)[2]), report["independent"])
        batch = model.forward_dynamics_derivatives(np.stack([q, q, q]),
                                                   np.stack([qd, qd, 2 * qd]),
                                                   np.stack([tau, tau, tau]), **extra)
        self.assertEqual(batch[2].shape, (3, r, n))
        for k in range(3):
            np.testing.assert_array_equal(batch[k][1], forward[k])
        none = np.zeros((0, n))  # an empty batch: no state decides the independent coordinates
        self.assertEqual([m.shape for m in model.forward_dynamics_derivatives(none, none, none)],
                         [(0, 0, 0), (0, 0, 0), (0, 0, n)])
        self.assertEqual([m.shape for m in model.inverse_dynamics_derivatives(none, none, none)],
                         [(0, 0, 0)] * 3)
        faster = model.forward_dynamics_derivatives(q, 2 * qd, tau, **extra)
        for k in range(3):
            np.testing.assert_array_equal(batch[k][2], faster[k])
        inverse_batch = model.inverse_dynamics_derivatives(np.stack([q, q]), np.stack([qd, 2 * qd]),
                                                           np.stack([qdd, qdd]), **extra)
        faster_inverse = model.inverse_dynamics_derivatives(q, 2 * qd, qdd, **extra)
        for k in range(3):
            np.testing.assert_array_equal(inverse_batch[k][0], inverse[k])
            np.testing.assert_array_equal(inverse_batch[k][1], faster_inverse[k])
        forces = model.constraint_force_derivatives(q, qd, tau, **extra)
        expected = dict(report["loop_force_derivatives"], **report["coupling_force_derivatives"])
        self.assertEqual(sorted(forces), sorted(expected))
        for name, entry in expected.items():
            for key in ("dq", "dqd", "dtau"):
                np.testing.assert_allclose(forces[name][key], np.array(entry[key]),
                                           rtol=1e-12, atol=1e-12)
        lin = model.linearize(q, qd, tau, **extra)
        cli_lin = cli_json("linearize", model_file, "--state", state_file)
        self.assertEqual(lin["states"], cli_lin["states"])
        self.assertEqual(lin["inputs"], report["independent"])
        np.testing.assert_allclose(lin["A"], np.array(cli_lin["A"]), rtol=1e-12, atol=1e-12)

    def test_errors(self):
        arm = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        bad = np.zeros(7)
        bad[2] = np.nan
        with self.assertRaises(skograph.Error) as caught:
            arm.forward_dynamics_derivatives(np.zeros(7), bad, np.zeros(7))
        self.assertIn("not a finite number", str(caught.exception))
        with self.assertRaises(skograph.Error):
            arm.linearize(np.zeros(7), dt=-1.0)
        # Finite numbers that overflow: refused as the command line refuses them, not NaN.
        overflowing = np.array([1e308, 0.0, -1e308])
        for call in (arm.forward_dynamics_derivatives, arm.inverse_dynamics_derivatives):
            with self.assertRaises(skograph.Error) as caught:
                call(np.zeros(7), np.zeros(7), np.zeros(7), gravity=overflowing)
            self.assertIn("not finite at this state", str(caught.exception))


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
