#!/usr/bin/python3
"""The Python module's arguments are checked as strictly as the command line's (every bad input
one line of skograph.Error naming the argument and, in a batch, the row; the same words as the
command line for the same problem), and its calls are functions of their arguments: plain Python
threads on one model, batches on several threads and repeated calls give the serial results bit
for bit; the notes on the independent coordinates reach UserWarning and Model.notes.

usage: SKOGRAPH_CLI=build/bin/skograph PYTHONPATH=build/python test_inputs_and_threads.py SOURCE_DIR
"""
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest
import warnings

import numpy as np

import skograph

SOURCE = sys.argv[1]
CLI = os.environ["SKOGRAPH_CLI"]
MODELS = pathlib.Path(SOURCE) / "examples" / "models"
ROBOTS = pathlib.Path(SOURCE).resolve().parent / "shared" / "robots" / "example-parallel-robots"


def one_line_error(test, call, *fragments):
    """call() raises skograph.Error (a ValueError) of one line holding every fragment."""
    with test.assertRaises(skograph.Error) as raised:
        call()
    message = str(raised.exception)
    test.assertIsInstance(raised.exception, ValueError)
    test.assertNotIn("\n", message)
    for fragment in fragments:
        test.assertIn(fragment, message)
    return message


def cli_error(*args):
    run = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)
    assert run.returncode == 2, run
    return run.stderr.strip()


class BadInput(unittest.TestCase):
    def setUp(self):
        self.arm = skograph.load_model(MODELS / "arm7.urdf")
        self.n = self.arm.dof_count
        self.zero = np.zeros(self.n)

    def test_non_finite_numbers_name_the_argument_the_dof_and_the_row(self):
        arm, zero = self.arm, self.zero
        for value, word in ((np.nan, "nan"), (np.inf, "inf"), (-np.inf, "-inf")):
            bad = zero.copy()
            bad[6] = value
            one_line_error(self, lambda: arm.forward_dynamics(bad, zero, zero),
                           f"q is not a finite number at dof '{arm.dofs[6]}' ({word})")
            one_line_error(self, lambda: arm.forward_dynamics(zero, bad, zero),
                           "qd is not a finite number")
            one_line_error(self, lambda: arm.forward_dynamics(zero, zero, bad),
                           "tau is not a finite number")
            one_line_error(self, lambda: arm.inverse_dynamics(bad, zero, zero),
                           "q is not a finite number")
            one_line_error(self, lambda: arm.mass_matrix(bad), "q is not a finite number")
            one_line_error(self, lambda: arm.jacobian(bad, arm.frames[-1]),
                           "q is not a finite number")
        batch = np.zeros((5, self.n))
        batch[2, 3] = np.nan
        one_line_error(self, lambda: arm.forward_dynamics(batch, np.zeros((5, self.n)),
                                                          np.zeros((5, self.n)), threads=2),
                       "q, row 3 (index 2), is not a finite number at dof")
        # Rows of different lengths: the first row unlike row 1 named.
        z = [0.0] * self.n
        one_line_error(self, lambda: arm.forward_dynamics([z, z, z[:-1], z], [z] * 4, [z] * 4),
                       f"q, row 3 (index 2), has {self.n - 1} entries where row 1 has {self.n}: "
                       "rows must be equally long")
        one_line_error(self, lambda: arm.mass_matrix((np.zeros(self.n), z + [1.0], z[:2])),
                       f"q, row 2 (index 1), has {self.n + 1} entries where row 1 has {self.n}")
        one_line_error(self, lambda: arm.inverse_dynamics([z] * 3, [z, z, 4.0], [z] * 3),
                       "qd, row 3 (index 2), has no entries (it is not a row) where row 1 has "
                       f"{self.n}")
        one_line_error(self, lambda: arm.inverse_dynamics([z] * 3, [z] * 3, [z[:3], z, z]),
                       f"qdd, row 2 (index 1), has {self.n} entries where row 1 has 3")
        # A batch large enough that its check is split over threads: the lowest bad row.
        large = np.ones((12000, self.n))
        large[9000, 1] = np.inf
        large[7000, 2] = np.nan
        finite = np.ones((12000, self.n))
        for threads in (1, 2):
            one_line_error(self, lambda: arm.inverse_dynamics(large, large, large, threads=threads),
                           f"q, row 7001 (index 7000), is not a finite number at dof "
                           f"'{arm.dofs[2]}' (nan)")
            one_line_error(self, lambda: arm.forward_dynamics(finite, large, finite, threads=threads),
                           "qd, row 7001 (index 7000), is not a finite number")
            one_line_error(self, lambda: arm.forward_dynamics(finite, finite, large, threads=threads),
                           "tau, row 7001 (index 7000), is not a finite number")
            one_line_error(self, lambda: arm.inverse_dynamics(finite, finite, large, threads=threads),
                           "qdd, row 7001 (index 7000), is not a finite number")
            one_line_error(self, lambda: arm.mass_matrix(large, threads=threads),
                           "q, row 7001 (index 7000), is not a finite number")
        one_line_error(self, lambda: arm.forward_dynamics(zero, zero, zero, gravity=[0, np.nan, 0]),
                       "gravity is not a finite number at entry 2")
        # A closed chain the same (the CLI's closure search never sees a NaN).
        fourbar = skograph.load_model(MODELS / "fourbar.yaml")
        bad = np.zeros(fourbar.dof_count)
        bad[0] = np.nan
        one_line_error(self, lambda: fourbar.assemble(bad), "q is not a finite number")

    def test_paths_take_os_pathlike(self):
        model = skograph.load_model(MODELS / "fivebar.urdf", loops=MODELS / "fivebar_loops.yaml")
        self.assertTrue(model.is_closed_chain)
        state = model.read_state(MODELS / "fivebar_state.json")
        self.assertEqual(state["q"].shape, (model.dof_count,))
        self.assertEqual(skograph.analyze_graph(MODELS / "fourbar.yaml")["nodes"],
                         skograph.analyze_graph(str(MODELS / "fourbar.yaml"))["nodes"])
        one_line_error(self, lambda: skograph.load_model(3), "path must be a path (str or os.PathLike), not int")

    def test_a_bad_modal_data_file_names_its_line_as_the_command_line_does(self):
        folder = pathlib.Path(tempfile.mkdtemp())
        try:
            (folder / "modes.txt").write_text("modes 1\nfrequencies_hz\n-1\ncoupling\n" + "0\n" * 6)
            model = folder / "panel.yaml"
            model.write_text("links:\n"
                             "  - name: panel\n"
                             "    mass: 1.0\n"
                             "    inertia: {ixx: 0.1, iyy: 0.1, izz: 0.1}\n"
                             "    flexible: {file: modes.txt}\n"
                             "joints:\n"
                             "  - {name: hinge, type: revolute, parent: world, child: panel}\n")
            python = one_line_error(self, lambda: skograph.load_model(model),
                                    "panel.yaml:5: link 'panel' flexible file: ",
                                    "modes.txt:2: 'frequencies_hz' has an entry that is negative")
            self.assertIn(python, cli_error("dynamics", model))
        finally:
            shutil.rmtree(folder)

    def test_a_string_where_names_belong_and_the_same_words_as_the_command_line(self):
        stewart = MODELS / "stewart_platform.yaml"
        one_line_error(self, lambda: skograph.load_model(stewart, independent="leg1"),
                       "independent must be a list of names, not the string 'leg1' (['leg1'])")
        one_line_error(self, lambda: skograph.load_model(stewart, independent=[1]),
                       "independent must be a list of names: an entry is int")
        python = one_line_error(self, lambda: skograph.load_model(stewart, independent=["legX"]),
                                "'legX' is not a joint")
        command = cli_error("dynamics", stewart, "--independent", "legX")
        self.assertIn(python, command)  # the command line's line ends with the same words
        one_line_error(self, lambda: skograph.load_model(stewart, conditioning_limit=0.5),
                       "conditioning_limit must be a number of at least 1")
        self.assertIn("--conditioning-limit must be a number of at least 1",
                      cli_error("dynamics", stewart, "--conditioning-limit", "0.5"))
        arm = self.arm
        one_line_error(self, lambda: arm.singularity(self.zero, frames=arm.frames[-1]),
                       "frames must be a list of names, not the string")

    def test_gravity_threads_and_array_kinds(self):
        arm, zero = self.arm, self.zero
        one_line_error(self, lambda: arm.forward_dynamics(zero, zero, zero, gravity=[0, -9.81]),
                       "gravity must have 3 entries, not 2")
        for threads in (0, -1):
            one_line_error(self, lambda: arm.mass_matrix(np.zeros((3, self.n)), threads=threads),
                           f"threads must be None or an integer of at least 1, not {threads}")
        for threads in (1.5, True, "2"):
            one_line_error(self, lambda: arm.mass_matrix(zero, threads=threads),
                           "threads must be None or an integer of at least 1, not")
        self.assertEqual(arm.mass_matrix(np.zeros((3, self.n)), threads=None).shape,
                         (3, self.n, self.n))
        one_line_error(self, lambda: arm.forward_dynamics(zero.astype(complex), zero, zero),
                       "q must be an array of real numbers (it holds complex numbers)")
        one_line_error(self, lambda: arm.forward_dynamics(np.array([None] * self.n), zero, zero),
                       "q must be an array of real numbers (it holds Python objects)")
        one_line_error(self, lambda: arm.forward_dynamics(["a"] * self.n, zero, zero),
                       "q must be an array of real numbers (it holds text)")
        one_line_error(self, lambda: arm.forward_dynamics(zero[:3], zero, zero),
                       "q has 3 entries per state, the model 7 dofs")
        # Integer arrays are numbers.
        np.testing.assert_array_equal(arm.mass_matrix(np.zeros(self.n, dtype=int)),
                                      arm.mass_matrix(zero))
        # A float64 C-contiguous array is read in place; every other layout, precision, byte
        # order or plain list is converted first, to the same numbers.
        Q = np.linspace(-0.5, 0.5, 3 * self.n).reshape(3, self.n)
        direct = arm.forward_dynamics(Q, Q, Q)
        for other in (np.asfortranarray(Q), np.repeat(Q, 2, axis=1)[:, ::2], Q.astype(">f8"),
                      Q.tolist()):
            np.testing.assert_array_equal(arm.forward_dynamics(other, Q, Q), direct)
        np.testing.assert_allclose(arm.forward_dynamics(Q.astype(np.float32), Q, Q), direct,
                                   rtol=1e-5, atol=1e-5)

    def test_a_batch_error_names_its_row(self):
        # The parallelogram driven by its rocker is singular at its change point (all zeros).
        model = skograph.load_model(pathlib.Path(SOURCE) / "examples" / "bad" / "parallelogram.yaml",
                                    independent=["rocker_joint"])
        n = model.dof_count
        q = np.full((4, n), 0.3)
        q[:, 1] = -0.3
        q[2] = 0.0
        message = one_line_error(
            self, lambda: model.forward_dynamics(q, np.zeros((4, n)), np.zeros((4, n)), threads=2),
            "singular configuration for the chosen independent coordinates 'rocker_joint'")
        self.assertTrue(message.startswith("row 3 (index 2): "), message)

    def test_a_singular_tree_row_is_named_as_a_single_call_names_it(self):
        # A ball joint turning a point mass about itself moves no inertia: D = 0 at every state.
        # A tree's batch runs in SIMD lanes; the error is still the single call's, row named.
        folder = pathlib.Path(tempfile.mkdtemp())
        path = folder / "ball.yaml"
        path.write_text("name: ball\nlinks:\n"
                        "  - {name: cart, mass: 1.0, inertia: {ixx: 0.1, iyy: 0.1, izz: 0.1}}\n"
                        "  - {name: ball, mass: 0.5, inertia: {ixx: 0, iyy: 0, izz: 0}}\n"
                        "joints:\n"
                        "  - {name: slide, type: prismatic, parent: world, child: cart, axis: [1, 0, 0]}\n"
                        "  - {name: turn, type: spherical, parent: cart, child: ball}\n")
        model = skograph.load_model(path)
        n = model.dof_count
        single = one_line_error(self, lambda: model.forward_dynamics(np.zeros(n), np.zeros(n),
                                                                      np.zeros(n)), "joint 'turn'")
        message = one_line_error(
            self, lambda: model.forward_dynamics(np.zeros((5, n)), np.zeros((5, n)), np.zeros((5, n)),
                                                 threads=2), "joint 'turn'")
        self.assertEqual(message, "row 1 (index 0): " + single)


class OneStateCalls(unittest.TestCase):
    """One state given as float64 arrays and nothing else takes a path of its own (python/
    fast_calls.hpp); every other form of the call goes through the general one. Both must give the
    same numbers bit for bit, the same errors, and keep no reference to anything."""

    def models(self):
        return ((MODELS / "arm7.urdf", None), (MODELS / "humanoid.yaml", None),
                (MODELS / "stewart_platform.yaml", None),
                (MODELS / "fivebar.urdf", MODELS / "fivebar_loops.yaml"))

    def test_the_one_state_path_gives_the_general_paths_numbers(self):
        for name in ("forward_dynamics", "inverse_dynamics", "mass_matrix"):  # the path is there
            self.assertEqual(type(skograph.Model.__dict__[name]).__name__, "method_descriptor")
        gravity = [0.0, 0.0, -9.81]  # the default, given: the general path
        for path, loops in self.models():
            with self.subTest(path.name):
                model = skograph.load_model(path, loops=loops)
                n = model.dof_count
                rng = np.random.default_rng(5)
                q = model.close(0.1 * rng.standard_normal(n), np.zeros(n))[0]
                qd, tau = rng.standard_normal(n), rng.standard_normal(n)
                qdd = model.forward_dynamics(q, qd, tau)
                np.testing.assert_array_equal(qdd, model.forward_dynamics(q, qd, tau,
                                                                           gravity=gravity))
                np.testing.assert_array_equal(qdd, skograph.Model.forward_dynamics(model, q, qd,
                                                                                   tau))
                forces = model.inverse_dynamics(q, qd, qdd)
                np.testing.assert_array_equal(forces, model.inverse_dynamics(q, qd, qdd,
                                                                              gravity=gravity))
                mass = model.mass_matrix(q)
                np.testing.assert_array_equal(mass, model.mass_matrix(q, threads=None))
                self.assertEqual((mass.shape, mass.dtype, mass.flags.writeable), ((n, n),
                                 np.float64, True))
                if not model.is_closed_chain:  # the round trip: M qdd + C = tau
                    np.testing.assert_allclose(forces, tau, rtol=0,
                                               atol=1e-10 * (1 + np.max(np.abs(tau))))
                # Other layouts and kinds are converted by the general path, to the same numbers.
                for other in (np.repeat(q, 2)[::2], q.astype(">f8"), q.tolist()):
                    np.testing.assert_array_equal(model.forward_dynamics(other, qd, tau), qdd)
                    np.testing.assert_array_equal(model.mass_matrix(other), mass)

    def test_the_one_state_path_keeps_no_reference_and_writes_no_input(self):
        model = skograph.load_model(MODELS / "arm7.urdf")
        n = model.dof_count
        q, qd, tau = np.full(n, 0.2), np.full(n, 0.1), np.full(n, 0.3)
        kept = [q.copy(), qd.copy(), tau.copy()]
        before = [sys.getrefcount(a) for a in (q, qd, tau, model)]
        results = [model.forward_dynamics(q, qd, tau) for _ in range(100)]
        results += [model.inverse_dynamics(q, qd, tau) for _ in range(100)]
        results += [model.mass_matrix(q) for _ in range(100)]
        self.assertEqual([sys.getrefcount(a) for a in (q, qd, tau, model)], before)
        results.append(np.zeros(n))  # an array only the list holds
        self.assertEqual({sys.getrefcount(results[i]) for i in range(len(results))},
                         {sys.getrefcount(results[-1])})
        self.assertEqual(len({id(r) for r in results}), len(results))  # a new array per call
        for given, copy in zip((q, qd, tau), kept):
            np.testing.assert_array_equal(given, copy)

    def test_the_one_state_path_raises_the_general_paths_errors(self):
        model = skograph.load_model(MODELS / "arm7.urdf")
        zero = np.zeros(model.dof_count)
        with self.assertRaises(TypeError):  # an argument missing: pybind11's own message
            model.forward_dynamics(zero, zero)
        with self.assertRaises(TypeError):
            skograph.Model.forward_dynamics(1, zero, zero, zero)
        one_line_error(self, lambda: model.mass_matrix(zero[:3]),
                       "q has 3 entries per state, the model 7 dofs")
        one_line_error(self, lambda: model.inverse_dynamics(zero, zero.reshape(1, -1), zero),
                       "qd must have the shape of q")


class CallsAreFunctionsOfTheirArguments(unittest.TestCase):
    def states(self, model, rows, seed):
        rng = np.random.default_rng(seed)
        q = 0.1 * rng.standard_normal((rows, model.dof_count))
        closed = [model.close(q[i], np.zeros(model.dof_count))[0] for i in range(rows)]
        return np.array(closed), rng.standard_normal((rows, model.dof_count))

    def test_python_threads_and_batches_give_the_serial_results(self):
        for path, loops in ((MODELS / "humanoid.yaml", None), (MODELS / "stewart_platform.yaml", None),
                            (MODELS / "fivebar.urdf", MODELS / "fivebar_loops.yaml")):
            with self.subTest(path.name):
                model = skograph.load_model(path, loops=loops)
                q, qd = self.states(model, 24, 3)
                tau = np.zeros_like(q)
                serial = np.array([model.forward_dynamics(q[i], qd[i], tau[i]) for i in range(len(q))])
                batch = model.forward_dynamics(q, qd, tau)
                np.testing.assert_array_equal(model.forward_dynamics(q, qd, tau, threads=3), batch)
                if model.is_closed_chain:
                    np.testing.assert_array_equal(batch, serial)
                else:  # a tree's batch runs in SIMD lanes: the single calls' to rounding
                    np.testing.assert_allclose(batch, serial, rtol=0,
                                               atol=1e-10 * (1 + np.max(np.abs(serial))))
                results = [None] * 4

                def work(k):
                    results[k] = np.array([model.forward_dynamics(q[i], qd[i], tau[i])
                                           for i in range(len(q))])
                threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
                for thread in threads:
                    thread.start()
                for thread in threads:
                    thread.join()
                for result in results:
                    np.testing.assert_array_equal(result, serial)

    @unittest.skipUnless((ROBOTS / "5bar_linkage").exists(), "no ../shared robots")
    def test_assembly_is_the_same_on_the_first_call_and_every_later_one(self):
        for name in ("5bar_linkage", "cassie_like"):
            with self.subTest(name):
                fresh = lambda: skograph.load_model(ROBOTS / name / "robot.urdf",
                                                    loops=ROBOTS / name / "robot.yaml")
                model = fresh()
                zero = np.zeros(model.dof_count)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    first = model.assemble(zero)
                    model.forward_dynamics(first["q"], zero, zero)
                    _ = model.independent
                    again = model.assemble(zero)
                    other = fresh().assemble(zero)
                np.testing.assert_array_equal(first["q"], again["q"])
                np.testing.assert_array_equal(first["q"], other["q"])
                self.assertEqual(first["moved"], {})
                for dof in first["independent"]:
                    self.assertEqual(first["q"][model.dofs.index(dof)], 0.0, dof)

    @unittest.skipUnless((ROBOTS / "robot_delta").exists(), "no ../shared robots")
    def test_the_notes_reach_user_warnings_and_model_notes(self):
        model = skograph.load_model(ROBOTS / "robot_delta" / "robot.urdf",
                                    loops=ROBOTS / "robot_delta" / "robot.yaml")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = model.assemble(np.zeros(model.dof_count))
        texts = [str(w.message) for w in caught if issubclass(w.category, UserWarning)]
        self.assertTrue(any("no choice of independent coordinates" in t for t in texts), texts)
        self.assertIn("mot1_rod1", result["independent"])
        self.assertTrue(any("conditioning limit 1000" in note for note in model.notes), model.notes)
        command = subprocess.run([CLI, "assemble", ROBOTS / "robot_delta" / "robot.urdf", "--loops",
                                  ROBOTS / "robot_delta" / "robot.yaml"], capture_output=True,
                                 text=True)
        self.assertIn("no choice of independent coordinates", command.stderr)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
