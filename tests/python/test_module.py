#!/usr/bin/python3
"""The Python module against the command line on the same files: `dynamics --json`,
`graph --json`, `export` Matrix Market files read by SciPy, `analyze` folders; plus identities
(A = (I - E_A)^-1, L L' = P M P', no fill in the canonical order), batches equal to single calls
with any number of threads, pickling through multiprocessing, and the one-line errors.

usage: SKOGRAPH_CLI=build/bin/skograph PYTHONPATH=build/python test_module.py SOURCE_DIR WORK_DIR
"""
import json
import multiprocessing
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np
import scipy.io
import scipy.sparse
import scipy.sparse.linalg

import skograph

SOURCE, WORK = sys.argv[1], sys.argv[2]
CLI = os.environ["SKOGRAPH_CLI"]
MODELS = os.path.join(SOURCE, "examples", "models")
BAD = os.path.join(SOURCE, "examples", "bad")
EXAMPLES = [("arm7.urdf", "arm7_state.json"), ("space_arm.urdf", "space_arm_state.json"),
            ("humanoid.yaml", "humanoid_state.json"), ("humanoid.xml", "humanoid_state.json"),
            ("fourbar.yaml", "fourbar_state.json"),
            ("fourbar_chain.yaml", "fourbar_chain_state.json"),
            ("fourbar_internal_cut.sdf", "fourbar_internal_cut_state.json"),
            ("geared_links.yaml", "geared_links_state.json"),
            ("delta_robot.yaml", "delta_robot_state.json"),
            ("stewart_platform.yaml", "stewart_platform_state.json"),
            ("suspension.yaml", "suspension_state.json")]


def cli(*args, check=True):
    run = subprocess.run([CLI] + [str(a) for a in args], capture_output=True, text=True)
    if check and run.returncode != 0:
        raise AssertionError(f"skograph {' '.join(map(str, args))}: {run.stderr}")
    return run


def close(a, b, tolerance):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    return a.shape == b.shape and np.max(np.abs(a - b), initial=0.0) <= tolerance * (1 + np.max(np.abs(b), initial=0.0))


def forward_in_worker(args):
    model, q, qd, tau = args
    return model.forward_dynamics(q, qd, tau)


class AgainstTheCommandLine(unittest.TestCase):
    def test_dynamics_json(self):
        for model_name, state_name in EXAMPLES:
            with self.subTest(model=model_name):
                path, state_path = os.path.join(MODELS, model_name), os.path.join(MODELS, state_name)
                report = json.loads(cli("dynamics", path, "--state", state_path, "--json").stdout)
                model = skograph.load_model(path)
                self.assertEqual(model.dofs, report["dofs"])
                state = model.read_state(state_path)
                q, qd, g = state["q"], state["qd"], state["gravity"]
                closed_q, closed_qd, independent = model.close(q, qd)
                self.assertTrue(close(closed_q, report["q"], 1e-12))
                self.assertTrue(close(closed_qd, report["qd"], 1e-12))
                self.assertTrue(close(model.forward_dynamics(q, qd, state["tau"], gravity=g),
                                      report["qdd"], 1e-10))
                self.assertTrue(close(model.inverse_dynamics(q, qd, state["qdd"], gravity=g),
                                      report["tau"], 1e-10))
                self.assertTrue(close(model.mass_matrix(q), report["M"], 1e-12))
                self.assertTrue(close(model.bias(q, qd, gravity=g), report["bias"], 1e-12))
                self.assertEqual(model.is_closed_chain, "independent" in report)
                if model.is_closed_chain:
                    self.assertEqual(independent, report["independent"])
                    self.assertTrue(close(model.embedding_matrix(q), report["X"], 1e-10))
                    self.assertTrue(close(model.reduced_mass_matrix(q), report["M_reduced"], 1e-10))
                forces = model.constraint_forces(q, qd, state["tau"], gravity=g)
                for key in ("loop_forces", "coupling_forces"):
                    self.assertEqual(sorted(forces[key]), sorted(report.get(key, {})))
                    for name, force in forces[key].items():
                        self.assertTrue(close(force, report[key][name], 1e-12))

    def test_sparse_operators_are_the_exported_matrix_market_files(self):
        # Trees: `export` writes M, E_A and A in the file's order; SciPy reads them.
        for model_name, state_name in EXAMPLES[:4]:
            with self.subTest(model=model_name):
                path, state_path = os.path.join(MODELS, model_name), os.path.join(MODELS, state_name)
                out = os.path.join(WORK, "export")
                os.makedirs(out, exist_ok=True)
                files = {k: os.path.join(out, k + ".mtx") for k in ("M", "E", "A")}
                cli("export", path, "--state", state_path, "--mass", files["M"],
                    "--kernel", files["E"], "--resolvent", files["A"])
                model = skograph.load_model(path)
                q = model.read_state(state_path)["q"]
                M = model.sparse_mass_matrix(q)
                self.assertIsInstance(M, scipy.sparse.csc_matrix)
                self.assertTrue(close(M.toarray(), scipy.io.mmread(files["M"]).toarray(), 1e-12))
                self.assertTrue(close(M.toarray(), model.mass_matrix(q), 1e-12))
                E, A = model.kernel(q), model.resolvent(q)
                self.assertTrue(close(E.toarray(), scipy.io.mmread(files["E"]).toarray(), 1e-12))
                self.assertTrue(close(A.toarray(), scipy.io.mmread(files["A"]).toarray(), 1e-12))
                # Part I Eq. 14: A = (I - E_A)^-1.
                identity = np.eye(E.shape[0])
                self.assertTrue(close(A.toarray() @ (identity - E.toarray()), identity, 1e-12))

    def test_reduced_mass_matrix_is_what_export_writes(self):
        # Closed chains: `export --mass` writes M_R of the embedded model, which is
        # sparse_reduced_mass_matrix; sparse_mass_matrix stays the spanning tree's M.
        for model_name, state_name in EXAMPLES[4:]:
            with self.subTest(model=model_name):
                path, state_path = os.path.join(MODELS, model_name), os.path.join(MODELS, state_name)
                exported = os.path.join(WORK, "export", "M_R.mtx")
                os.makedirs(os.path.dirname(exported), exist_ok=True)
                cli("export", path, "--state", state_path, "--mass", exported)
                model = skograph.load_model(path)
                q = model.read_state(state_path)["q"]
                M_R = model.sparse_reduced_mass_matrix(q)
                self.assertTrue(close(M_R.toarray(), scipy.io.mmread(exported).toarray(), 1e-12))
                self.assertTrue(close(M_R.toarray(), model.reduced_mass_matrix(q), 1e-10))
                self.assertTrue(close(model.sparse_mass_matrix(q).toarray(), model.mass_matrix(q),
                                      1e-12))

    def test_graph_json_is_analyze_graph(self):
        for path in (os.path.join(SOURCE, "examples", "graphs", "fourbar.dot"),
                     os.path.join(MODELS, "stewart_platform.yaml")):
            self.assertEqual(skograph.analyze_graph(path), json.loads(cli("graph", path, "--json").stdout))

    @unittest.skipUnless(skograph.have_viz, "built without the viz layer")
    def test_analyze_writes_what_the_command_line_writes(self):
        path = os.path.join(MODELS, "fourbar.yaml")
        mine, theirs = os.path.join(WORK, "analyze_python"), os.path.join(WORK, "analyze_cli")
        shutil.rmtree(mine, ignore_errors=True)
        shutil.rmtree(theirs, ignore_errors=True)
        skograph.analyze(path, mine)
        cli("analyze", path, "--out", theirs)
        self.assertEqual(sorted(os.listdir(mine)), sorted(os.listdir(theirs)))
        for name in ("report.json", "report.txt"):
            with open(os.path.join(mine, name)) as a, open(os.path.join(theirs, name)) as b:
                self.assertEqual(a.read().replace(mine, theirs), b.read())
        picture = os.path.join(WORK, "tree.svg")
        skograph.render(path, picture, what="spanning-tree")
        with open(picture) as f:
            self.assertIn("<svg", f.read())

    def test_errors_carry_the_command_lines_line(self):
        for name in ("unattached.urdf", "nan.urdf", "bad.yaml", "unknown_link.yaml",
                     "coupling.yaml", "missing_child.urdf"):
            with self.subTest(file=name):
                path = os.path.join(BAD, name)
                run = cli("dynamics", path, check=False)
                self.assertEqual(run.returncode, 2)
                with self.assertRaises(skograph.Error) as raised:
                    skograph.load_model(path)
                self.assertEqual("skograph dynamics: " + str(raised.exception) + "\n", run.stderr)
                self.assertIsInstance(raised.exception, ValueError)
        # A loop that cannot be closed: at the first state, as `dynamics` says at its state.
        reach = skograph.load_model(os.path.join(BAD, "reach.yaml"))
        with self.assertRaises(skograph.Error) as raised:
            reach.close(np.zeros(reach.dof_count), np.zeros(reach.dof_count))
        self.assertIn("loop 'tip' cannot be closed from the given state", str(raised.exception))
        with self.assertRaises(skograph.Error) as raised:
            skograph.analyze_graph(os.path.join(BAD, "nan.urdf"))
        self.assertIn("nan.urdf:5:", str(raised.exception))
        model = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        with self.assertRaises(skograph.Error):
            model.mass_matrix(np.zeros(6))
        with self.assertRaises(skograph.Error):
            model.factor(np.zeros(7), ordering="best")

    def test_version_is_the_programs(self):
        self.assertEqual("skograph " + skograph.__version__ + "\n", cli("--version").stdout)


class ChosenIndependent(unittest.TestCase):
    def test_the_stewart_platform_in_its_legs_is_the_command_lines(self):
        path = os.path.join(MODELS, "stewart_platform.yaml")
        state_path = os.path.join(MODELS, "stewart_platform_state.json")
        legs = [f"leg{i}" for i in range(1, 7)]
        report = json.loads(cli("dynamics", path, "--state", state_path, "--json",
                                "--independent", ",".join(legs)).stdout)
        model = skograph.load_model(path, independent=legs)
        state = model.read_state(state_path)
        q, qd, g = state["q"], state["qd"], state["gravity"]
        self.assertEqual(model.close(q, qd)[2], legs)
        self.assertTrue(close(model.inverse_dynamics(q, qd, state["qdd"], gravity=g), report["tau"], 1e-10))
        self.assertTrue(close(model.forward_dynamics(q, qd, state["tau"], gravity=g), report["qdd"], 1e-10))
        again = pickle.loads(pickle.dumps(model))
        self.assertEqual(again.close(q, qd)[2], legs)
        with self.assertRaises(skograph.Error) as raised:
            skograph.load_model(path, independent=["leg1", "nothing"])
        self.assertIn("'nothing' is not a joint", str(raised.exception))


class ParallelRobots(unittest.TestCase):
    """Loop files (loops=), assembly from any start, notes, pickles that keep the loops."""
    FIVEBAR = os.path.join(MODELS, "fivebar.urdf")
    LOOPS = os.path.join(MODELS, "fivebar_loops.yaml")

    def test_assembly_closes_the_loop_file_and_agrees_with_the_command_line(self):
        model = skograph.load_model(self.FIVEBAR, loops=self.LOOPS)
        self.assertTrue(model.is_closed_chain)
        self.assertEqual(model.independent, ["motor1", "motor2"])  # name_mot
        q0 = np.zeros(model.dof_count)
        q0[model.dofs.index("motor1")], q0[model.dofs.index("motor2")] = 0.3, -0.2
        result = model.assemble(q0)
        self.assertLessEqual(result["residual"], 1e-10)
        self.assertEqual(result["moved"], {})
        for name in ("motor1", "motor2"):  # the independent coordinates are held
            i = model.dofs.index(name)
            self.assertEqual(result["q"][i], q0[i])
        # The command line's assemble on the same start gives the same configuration.
        state = os.path.join(WORK, "fivebar_start.json")
        with open(state, "w") as f:
            json.dump({"q": dict(zip(model.dofs, q0.tolist()))}, f)
        report = json.loads(cli("assemble", self.FIVEBAR, "--loops", self.LOOPS, "--state", state,
                                "--json").stdout)
        self.assertTrue(close(report["q"], result["q"], 1e-12))
        self.assertEqual(report["independent"], result["independent"])
        # Velocities are projected onto the constraints: the closed state's forward dynamics runs.
        qd = model.assemble(q0, np.ones(model.dof_count))["qd"]
        self.assertEqual(model.forward_dynamics(result["q"], qd, np.zeros(model.dof_count)).shape,
                         (model.dof_count,))

    def test_loops_survive_pickling_and_reach_every_entry_point(self):
        model = skograph.load_model(self.FIVEBAR, loops=self.LOOPS)
        again = pickle.loads(pickle.dumps(model))
        self.assertTrue(again.is_closed_chain)
        q = model.assemble(np.zeros(model.dof_count))["q"]
        self.assertTrue(np.array_equal(again.mass_matrix(q), model.mass_matrix(q)))
        graph = skograph.analyze_graph(self.FIVEBAR, loops=self.LOOPS)
        self.assertEqual(graph, json.loads(cli("graph", self.FIVEBAR, "--loops", self.LOOPS,
                                               "--json").stdout))
        self.assertNotEqual(graph, skograph.analyze_graph(self.FIVEBAR))  # the loop is in it
        tree = skograph.load_model(self.FIVEBAR)
        self.assertFalse(tree.is_closed_chain)

    def test_a_mechanism_that_cannot_close_answers_without_exceptions_where_it_should(self):
        # The loop file's frames on one link cannot coincide: loading refuses with the file and line.
        bad = os.path.join(WORK, "self_loop.yaml")
        with open(bad, "w") as f:
            f.write("closed_loop: [[tip_A, tip_A]]\ntype: [6d]\n")
        with self.assertRaises(skograph.Error) as raised:
            skograph.load_model(self.FIVEBAR, loops=bad)
        self.assertTrue(str(raised.exception).startswith(bad + ":1:"), str(raised.exception))
        # A tree's independent coordinates are all its dofs, and assembly leaves q as it is.
        tree = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        self.assertEqual(tree.independent, tree.dofs)
        q = np.linspace(-1, 1, tree.dof_count)
        self.assertTrue(np.array_equal(tree.assemble(q)["q"], q))
        self.assertEqual(tree.assemble(q)["residual"], 0.0)

    def test_notes_say_what_the_model_made_of_the_file(self):
        # A fixed joint among the actuated ones is dropped from the choice with a note, which the
        # command line prints as a note line.
        loops = os.path.join(WORK, "fivebar_fixed_motor.yaml")
        with open(loops, "w") as f:
            f.write("closed_loop: [[tip_A, tip_B]]\ntype: [3d]\nname_mot: [motor1, tip_A_frame, motor2]\n")
        model = skograph.load_model(self.FIVEBAR, loops=loops)
        self.assertEqual(model.notes, ["name_mot 'tip_A_frame' is a fixed joint: not an independent coordinate"])
        self.assertEqual(model.independent, ["motor1", "motor2"])
        report = cli("dynamics", self.FIVEBAR, "--loops", loops, "--json")
        self.assertIn(model.notes[0], report.stderr)
        self.assertEqual(skograph.load_model(self.FIVEBAR, loops=self.LOOPS).notes, [])

    def test_a_link_with_two_parents_is_cut_where_the_user_wants(self):
        # The effector has two parent joints: tip2 is cut unless it is wanted independent.
        path = os.path.join(SOURCE, "examples", "models", "fivebar_effector.urdf")
        model = skograph.load_model(path)
        self.assertIn("cut 'tip2' (now a loop closure)", model.notes[0])
        self.assertEqual(model.dofs, ["motor1", "elbow1", "motor2", "elbow2", "tip1"])
        kept = skograph.load_model(path, independent=["motor1", "motor2", "tip2"])
        self.assertIn("cut 'tip1'", kept.notes[0])
        self.assertEqual(kept.independent, ["motor1", "motor2", "tip2"])


class Kinematics(unittest.TestCase):
    """The kinematics calls are what `skograph kinematics --json` prints, J qd is the
    velocity, J_R the derivative of the assembled pose, inverse kinematics a round trip."""

    def test_the_calls_are_the_command_lines_json(self):
        for name, state_name, frame in (("arm7.urdf", "arm7_state.json", "link7"),
                                        ("stewart_platform.yaml", "stewart_platform_state.json", "platform")):
            with self.subTest(model=name):
                path, state_path = os.path.join(MODELS, name), os.path.join(MODELS, state_name)
                report = json.loads(cli("kinematics", path, "--state", state_path, "--frames", frame,
                                        "--json").stdout)
                model = skograph.load_model(path)
                state = model.read_state(state_path)
                q, qd, g = np.array(report["q"]), state["qd"], state["gravity"]
                pose = model.frame_pose(q, frame)
                self.assertTrue(close(pose[:3, :3], report["frames"][frame]["R"], 1e-12))
                self.assertTrue(close(pose[:3, 3], report["frames"][frame]["p"], 1e-12))
                self.assertTrue(close(model.jacobian(q, frame), report["jacobians"][frame]["world"], 1e-12))
                self.assertTrue(close(model.jacobian(q, frame, frame="local"),
                                      report["jacobians"][frame]["local"], 1e-12))
                self.assertTrue(close(model.center_of_mass(q), report["com"], 1e-12))
                self.assertTrue(close(model.com_jacobian(q), report["com_jacobian"], 1e-12))
                self.assertAlmostEqual(model.mass, report["mass"], places=12)
                self.assertAlmostEqual(model.potential_energy(q, gravity=g), report["potential_energy"], places=9)
                closed_qd = model.close(q, qd)[1]
                self.assertTrue(close(model.frame_velocity(q, closed_qd, frame), report["frames"][frame]["v"], 1e-10))
                self.assertTrue(close(model.jacobian(q, frame) @ closed_qd, report["frames"][frame]["v"], 1e-10))
                self.assertAlmostEqual(model.kinetic_energy(q, closed_qd), report["kinetic_energy"], places=9)
                if model.is_closed_chain:
                    self.assertEqual(report["independent"], model.close(q, qd)[2])
                    self.assertTrue(close(model.reduced_jacobian(q, frame), report["jacobians_reduced"][frame], 1e-10))
                    measures = model.singularity(q, [frame])
                    self.assertTrue(close(measures["constraint_condition"],
                                          report["singularity"]["constraint_condition"], 1e-9))
                    dynamics = json.loads(cli("dynamics", path, "--state", state_path, "--json").stdout)
                    self.assertTrue(close(measures["constraint_condition"],
                                          [a["condition_number"] for a in dynamics["aggregates"]], 1e-9))

    def test_batches_shapes_and_the_inverse_kinematics_round_trip(self):
        model = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        rng = np.random.default_rng(5)
        Q, QD = rng.uniform(-1, 1, (5, 7)), rng.uniform(-1, 1, (5, 7))
        self.assertEqual(model.jacobian(Q, "link7").shape, (5, 6, 7))
        self.assertEqual(model.frame_pose(Q, "link7").shape, (5, 4, 4))
        self.assertEqual(model.kinetic_energy(Q, QD).shape, (5,))
        for i in range(5):
            self.assertTrue(np.array_equal(model.jacobian(Q, "link7")[i], model.jacobian(Q[i], "link7")))
            self.assertAlmostEqual(model.kinetic_energy(Q, QD)[i],
                                   0.5 * QD[i] @ model.mass_matrix(Q[i]) @ QD[i], places=12)
        # A 7-dof arm's hand pose from q, reached again from another start.
        target = model.frame_pose(Q[0], "link7")
        found = model.inverse_kinematics("link7", target, Q[0] + 0.05)
        self.assertTrue(close(model.frame_pose(found["q"], "link7"), target, 1e-10))
        with self.assertRaises(skograph.Error):
            far = target.copy()
            far[2, 3] += 50.0
            model.inverse_kinematics("link7", far, Q[0])
        with self.assertRaises(skograph.Error):
            model.jacobian(Q[0], "no_such_frame")
        with self.assertRaises(skograph.Error):
            model.jacobian(Q[0], "link7", frame="sideways")


class Operators(unittest.TestCase):
    """Part II's operators are what `skograph operators --json` prints, and are M's:
    M^-1 M = I, log det M, M = F D F*, the operational-space inertia the compliance's inverse."""

    def test_the_calls_are_the_command_lines_json_and_the_mass_matrixs(self):
        for name, state_name, frame in (("arm7.urdf", "arm7_state.json", "link7"),
                                        ("stewart_platform.yaml", "stewart_platform_state.json", "platform")):
            with self.subTest(model=name):
                path, state_path = os.path.join(MODELS, name), os.path.join(MODELS, state_name)
                report = json.loads(cli("operators", path, "--state", state_path, "--frames", frame,
                                        "--json").stdout)
                model = skograph.load_model(path)
                state = model.read_state(state_path)
                q = model.close(state["q"], state["qd"])[0]
                ops = model.operators(q)
                self.assertEqual(ops["dofs"], report["dofs"])
                for key in ("M_inverse", "innovations_factor", "innovations_inverse"):
                    self.assertTrue(close(ops[key], report[key], 1e-12), key)
                self.assertAlmostEqual(ops["log_det_M"], report["log_det_M"], places=10)
                self.assertEqual(len(ops["D"]), len(report["D"]))
                mass = model.reduced_mass_matrix(q) if model.is_closed_chain else model.mass_matrix(q)
                n = mass.shape[0]
                self.assertTrue(close(model.mass_inverse(q) @ mass, np.eye(n), 1e-9))
                self.assertAlmostEqual(model.log_det_mass(q), np.linalg.slogdet(mass)[1], places=8)
                F, D, F_inverse = model.innovations_factors(q)
                self.assertTrue(close(F @ D @ F.T, mass, 1e-10))
                self.assertTrue(close(F @ F_inverse, np.eye(n), 1e-10))
                space = model.operational_space(q, [frame])[frame]
                J = model.reduced_jacobian(q, frame)
                self.assertTrue(close(space["compliance"], J @ np.linalg.solve(mass, J.T), 1e-9))
                self.assertTrue(close(space["compliance"], report["operational_space_compliance"][frame], 1e-12))
                if space["inertia"] is None:
                    self.assertIsNone(report["operational_space"][frame])
                else:
                    self.assertTrue(close(space["inertia"] @ space["compliance"], np.eye(6), 1e-7))


class NodeQuantities(unittest.TestCase):
    """The per-node Riccati and Lyapunov quantities satisfy part II's identities."""

    def test_log_det_compliance_and_leaves(self):
        model = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        q = model.read_state(os.path.join(MODELS, "arm7_state.json"))["q"]
        nodes = model.node_quantities(q)
        self.assertEqual(nodes["nodes"], ["joint%d" % i for i in range(1, 8)])
        # Eq. 53: log det M = sum log det D(k).
        self.assertAlmostEqual(sum(np.linalg.slogdet(d)[1] for d in nodes["D"]),
                               np.linalg.slogdet(model.mass_matrix(q))[1], places=9)
        # The tip: nothing articulated beyond it, so P = R there.
        self.assertTrue(close(nodes["P"][-1], nodes["R"][-1], 1e-12))
        # Towards the parent: psi P = phi P+ (Eq. 32) and K = phi G; the base has no parent.
        self.assertEqual(nodes["parent"][:2], ["", "joint1"])
        self.assertEqual(nodes["phi"][0].size, 0)
        for k in range(1, 7):
            self.assertTrue(close(nodes["psi"][k] @ nodes["P"][k], nodes["phi"][k] @ nodes["P_plus"][k], 1e-9))
            self.assertTrue(close(nodes["K"][k], nodes["phi"][k] @ nodes["G"][k], 1e-12))
        # Omega(k, k) of Eq. 23-24 is J M^-1 J* at the link's origin, in the link's axes.
        for index, link in ((3, "link4"), (6, "link7")):
            rotation = model.frame_pose(q, link)[:3, :3]
            axes = np.kron(np.eye(2), rotation)
            compliance = model.operational_space(q, [link])[link]["compliance"]
            self.assertTrue(close(axes @ nodes["Omega"][index] @ axes.T, compliance, 1e-9), link)
        closed = skograph.load_model(os.path.join(MODELS, "fourbar_chain.yaml"))
        zero = np.zeros(closed.dof_count)
        closed_q = closed.close(zero, zero)[0]
        aggregated = closed.node_quantities(closed_q)
        self.assertTrue(any("+" in name for name in aggregated["nodes"]))
        self.assertAlmostEqual(sum(np.linalg.slogdet(d)[1] for d in aggregated["D"]),
                               closed.log_det_mass(closed_q), places=9)


class BaseChange(unittest.TestCase):
    """Model.with_base (free-flying paper, Appendix A) is the command line's --base, keeps
    every link's motion and operational-space inertia, and survives pickling."""

    def test_with_base_is_the_command_lines_and_keeps_the_links_motion(self):
        path = os.path.join(MODELS, "space_arm.urdf")
        state_path = os.path.join(MODELS, "space_arm_state.json")
        model = skograph.load_model(path)
        rebased = model.with_base("s_link4")
        self.assertEqual(rebased.base, "s_link4")
        self.assertEqual(rebased.dofs[:6], ["s_link4_floating:%d" % k for k in range(6)])
        self.assertEqual(skograph.load_model(path, base="s_link4").dofs, rebased.dofs)
        report = json.loads(cli("dynamics", path, "--state", state_path, "--base", "s_link4",
                                "--json").stdout)
        state = model.read_state(state_path)
        converted = model.convert_state(rebased, state["q"], state["qd"], qdd=state["qdd"],
                                        tau=state["tau"])
        self.assertEqual(set(converted), {"q", "qd", "qdd", "tau"})
        self.assertTrue(close(rebased.read_state(state_path)["q"], converted["q"], 1e-12))
        self.assertTrue(close(np.array(report["q"]), converted["q"], 1e-12))
        g = state["gravity"]
        qdd = rebased.forward_dynamics(converted["q"], converted["qd"], converted["tau"], gravity=g)
        self.assertTrue(close(np.array(report["qdd"]), qdd, 1e-9))
        # The joints' accelerations do not depend on the base body; nor do the links' motions.
        file_qdd = model.forward_dynamics(state["q"], state["qd"], state["tau"], gravity=g)
        self.assertTrue(close(qdd[6:], file_qdd[6:], 1e-9))
        for link in ("bus", "s_link2", "s_link6"):
            self.assertTrue(close(rebased.frame_pose(converted["q"], link),
                                  model.frame_pose(state["q"], link), 1e-12), link)
            self.assertTrue(close(rebased.operational_space(converted["q"], [link])[link]["inertia"],
                                  model.operational_space(state["q"], [link])[link]["inertia"], 1e-9),
                            link)
        again = pickle.loads(pickle.dumps(rebased))
        self.assertEqual((again.base, again.dofs), (rebased.base, rebased.dofs))
        with self.assertRaises(skograph.Error):
            skograph.load_model(os.path.join(MODELS, "arm7.urdf")).with_base("link3")


class Docstrings(unittest.TestCase):
    """Every public function, method, property and class says what it does: a
    docstring longer than its signature (data attributes such as have_viz excepted)."""

    @staticmethod
    def described(name, obj):
        text = (getattr(obj, "__doc__", None) or "").strip()
        lines = text.split("\n")
        signature = lines[0] if lines and lines[0].startswith(name + "(") else ""
        body = "\n".join(lines[1:] if signature else lines).strip()
        return body, signature or name

    def test_every_public_name_has_a_docstring(self):
        missing = []
        for name in skograph.__all__ + ["Error"]:
            obj = getattr(skograph, name)
            if isinstance(obj, (str, bool)):
                continue
            body, signature = self.described(name, obj)
            if len(body) <= len(signature):
                missing.append(name)
        for name in dir(skograph.Model):
            if name.startswith("_"):
                continue
            body, signature = self.described(name, getattr(skograph.Model, name))
            if len(body) <= len(signature):
                missing.append("Model." + name)
        self.assertEqual(missing, [])

    def test_the_reference_page_names_every_call(self):
        with open(os.path.join(SOURCE, "docs", "python.md"), encoding="utf-8") as f:
            page = f.read()
        names = [name for name in skograph.__all__ if not name.startswith("_")]
        names += [name for name in dir(skograph.Model) if not name.startswith("_")]
        self.assertEqual([name for name in names if not re.search(r"\b" + name + r"\b", page)], [])


class ForwardDynamicsFamilies(unittest.TestCase):
    """Every family of the serial-chain paper gives forward_dynamics' qdd on trees."""

    def test_every_method_gives_the_same_qdd(self):
        for name, state_name in (("arm7.urdf", "arm7_state.json"), ("humanoid.yaml", "humanoid_state.json"),
                                 ("space_arm.urdf", "space_arm_state.json")):
            with self.subTest(model=name):
                model = skograph.load_model(os.path.join(MODELS, name))
                state = model.read_state(os.path.join(MODELS, state_name))
                q, qd, tau, g = state["q"], state["qd"], state["tau"], state["gravity"]
                reference = model.forward_dynamics(q, qd, tau, gravity=g)
                methods = ["articulated-body", "cholesky", "innovations", "conjugate-gradient",
                           "preconditioned-conjugate-gradient"]
                if name == "space_arm.urdf":  # free-flying: the free-flying paper's Algorithm 3.3
                    methods.append("base-invariant")
                for method in methods:
                    self.assertTrue(close(model.forward_dynamics_by(q, qd, tau, method, gravity=g),
                                          reference, 1e-9), method)
        closed = skograph.load_model(os.path.join(MODELS, "fourbar.yaml"))
        zero = np.zeros(closed.dof_count)
        with self.assertRaises(skograph.Error):
            closed.forward_dynamics_by(zero, zero, zero, "cholesky")
        grounded = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        with self.assertRaises(skograph.Error):
            grounded.forward_dynamics_by(np.zeros(7), np.zeros(7), np.zeros(7), "base-invariant")
        with self.assertRaises(skograph.Error):
            model.forward_dynamics_by(np.zeros(model.dof_count), np.zeros(model.dof_count),
                                      np.zeros(model.dof_count), "newton")


def export_paths(model_name, state_name, prefix, files):
    """The example model and state, and the files of an export into a fresh folder of WORK."""
    folder = os.path.join(WORK, prefix + "_" + model_name.replace(".", "_"))
    os.makedirs(folder, exist_ok=True)
    return (os.path.join(MODELS, model_name), os.path.join(MODELS, state_name),
            tuple(os.path.join(folder, f) for f in files))


class ConstraintSystems(unittest.TestCase):
    """G, Gdot qd and the multiplier method against the command line's export read by
    SciPy, embedding's X and qdd, and the dense DAE solved by NumPy."""

    def test_export_read_by_scipy_is_constraint_jacobian_and_solves_the_dae(self):
        for model_name, state_name in EXAMPLES[4:]:
            with self.subTest(model=model_name):
                path, state_path, (g_file, b_file, labels_file) = export_paths(
                    model_name, state_name, "constraints", ("G.mtx", "b.mtx", "G.txt"))
                cli("export", path, "--state", state_path, "--constraints", g_file,
                    "--constraint-bias", b_file, "--constraint-labels", labels_file)
                report = json.loads(cli("dynamics", path, "--state", state_path, "--json").stdout)
                q, qd = np.array(report["q"]), np.array(report["qd"])
                model = skograph.load_model(path)
                system = model.constraint_system(q, qd)
                exported = scipy.io.mmread(g_file).toarray()
                self.assertTrue(close(exported, system["G"].toarray(), 1e-15))
                self.assertTrue(close(scipy.io.mmread(b_file).toarray().ravel(), system["bias"], 1e-15))
                with open(labels_file) as labels:
                    self.assertEqual(labels.read().splitlines(), system["labels"])
                self.assertTrue(close(exported @ np.array(report["X"]), 0 * exported @ np.array(report["X"]), 1e-9))
                # The dense DAE [M G*; G 0] [qdd; -lambda] = [tau - C; -Gdot qd] by NumPy.
                tau = np.zeros(len(q))  # gravity loads the loops
                M, C = model.mass_matrix(q), model.bias(q, qd)
                G = exported
                k = G.shape[0]
                K = np.block([[M, G.T], [G, np.zeros((k, k))]])
                solution = np.linalg.solve(K, np.concatenate([tau - C, -system["bias"]]))
                result = model.multiplier_dynamics(q, qd, tau)
                self.assertTrue(close(result["qdd"], solution[:len(q)], 1e-9))
                self.assertTrue(close(result["multipliers"], -solution[len(q):], 1e-7))
                self.assertTrue(close(model.forward_dynamics(q, qd, tau, solver="multipliers"),
                                      model.forward_dynamics(q, qd, tau), 1e-10))
                self.assertEqual(model.constraint_jacobian(q, all_rows=True).shape[0], system["stacked_rows"])

    def test_scipy_solves_the_exported_kkt_system_to_the_same_qdd(self):
        for model_name, state_name in EXAMPLES[4:]:
            with self.subTest(model=model_name):
                path, state_path, (k_file, r_file, labels_file) = export_paths(
                    model_name, state_name, "kkt", ("K.mtx", "r.mtx", "K.txt"))
                run = cli("export", path, "--state", state_path, "--kkt", k_file, "--kkt-rhs", r_file,
                          "--kkt-labels", labels_file)
                self.assertIn("none in the M block", run.stdout)
                report = json.loads(cli("dynamics", path, "--state", state_path, "--json").stdout)
                K = scipy.io.mmread(k_file).tocsc()
                rhs = scipy.io.mmread(r_file).toarray().ravel()
                solution = scipy.sparse.linalg.spsolve(K, rhs)
                with open(labels_file) as labels:
                    names = labels.read().splitlines()
                dofs = report["dofs"]
                qdd = np.array([solution[names.index(name)] for name in dofs])
                self.assertTrue(close(qdd, report["qdd"], 1e-9), model_name)
                # The module gives the same system; its order maps rows back to the unknowns.
                model = skograph.load_model(path)
                q, qd = np.array(report["q"]), np.array(report["qd"])
                kkt = model.kkt_system(q, qd, np.zeros(len(q)))  # tau enters rhs only
                self.assertTrue(close(kkt["K"].toarray(), K.toarray(), 1e-15))
                self.assertEqual(kkt["labels"], names)

    def test_trees_have_no_rows_and_a_bad_solver_is_one_error(self):
        model = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        self.assertEqual(model.constraint_jacobian(np.zeros(7)).shape, (0, 7))
        with self.assertRaises(skograph.Error) as caught:
            model.forward_dynamics(np.zeros(7), np.zeros(7), np.zeros(7), solver="lagrange")
        self.assertIn("unknown solver 'lagrange'", str(caught.exception))


class FlexibleBodies(unittest.TestCase):
    """A satellite with two flexible panels: the command line's numbers, a pickle that keeps the
    modal data, and derivatives against differences of forward dynamics."""

    def setUp(self):
        self.path = os.path.join(MODELS, "satellite.yaml")
        self.state_path = os.path.join(MODELS, "satellite_state.json")
        self.model = skograph.load_model(self.path)
        self.state = self.model.read_state(self.state_path)

    def test_against_the_command_line(self):
        report = json.loads(cli("dynamics", self.path, "--state", self.state_path, "--json").stdout)
        model, state = self.model, self.state
        self.assertEqual(model.dofs, report["dofs"])
        self.assertEqual(model.dofs[6:9], ["right_hinge", "right_panel:eta1", "right_panel:eta2"])
        q, qd, g = state["q"], state["qd"], state["gravity"]
        self.assertTrue(close(model.forward_dynamics(q, qd, state["tau"], gravity=g), report["qdd"], 1e-10))
        self.assertTrue(close(model.mass_matrix(q), report["M"], 1e-12))
        self.assertTrue(close(model.bias(q, qd, gravity=g), report["bias"], 1e-12))

    def test_the_centre_of_mass_moves_with_the_modes(self):
        # c' = J qd, and J against central differences of c along each dof's rate; the panels'
        # modes move it.
        model, q, qd = self.model, self.state["q"], self.state["qd"]
        jacobian = model.com_jacobian(q)
        self.assertTrue(close(model.center_of_mass_velocity(q, qd), jacobian @ qd, 1e-12))
        h = 1e-5
        for j in range(len(model.dofs)):
            unit = np.eye(len(model.dofs))[j]
            column = (model.center_of_mass(model.integrate(q, unit, h)) -
                      model.center_of_mass(model.integrate(q, unit, -h))) / (2 * h)
            self.assertTrue(close(column, jacobian[:, j], 1e-8), model.dofs[j])
        modes = [j for j, name in enumerate(model.dofs) if ":eta" in name]
        self.assertGreater(np.linalg.norm(jacobian[:, modes]), 1e-4)
        # A link frame: V = J qd in world and local axes.
        for axes in ("world", "local"):
            frame = model.jacobian(q, "right_panel", frame=axes)
            self.assertTrue(close(model.frame_velocity(q, qd, "right_panel", frame=axes), frame @ qd, 1e-12))

    def test_a_pickle_keeps_the_modal_data(self):
        again = pickle.loads(pickle.dumps(self.model))
        q, qd, tau = self.state["q"], self.state["qd"], self.state["tau"]
        self.assertEqual(again.dofs, self.model.dofs)
        np.testing.assert_array_equal(again.forward_dynamics(q, qd, tau),
                                      self.model.forward_dynamics(q, qd, tau))

    def test_a_pickle_of_a_flexible_model_is_version_2(self):
        self.assertEqual(self.model.__getstate__()[1], 2)
        self.assertEqual(skograph.load_model(os.path.join(MODELS, "arm7.urdf")).__getstate__()[1], 1)

    def test_operators_when_the_file_lists_joints_out_of_depth_first_order(self):
        # The tip's joint comes after the second panel's: node rows of 6 + modes in the file's order.
        text = ("links:\n"
                "  - {name: hub, mass: 20.0, inertia: {ixx: 2.0, iyy: 2.5, izz: 3.0}}\n"
                "  - name: panel\n"
                "    flexible: {beam: {length: 2.0, EI_y: 40.0, EI_z: 60.0, rho_A: 1.5, modes: 2}}\n"
                "  - {name: other, mass: 1.0, inertia: {ixx: 0.1, iyy: 0.1, izz: 0.1}}\n"
                "  - {name: tip, mass: 0.5, inertia: {ixx: 0.01, iyy: 0.01, izz: 0.01}}\n"
                "joints:\n"
                "  - {name: float, type: free, parent: world, child: hub}\n"
                "  - {name: hinge, type: revolute, parent: hub, child: panel, axis: [0, 1, 0]}\n"
                "  - {name: arm, type: revolute, parent: hub, child: other, axis: [0, 0, 1]}\n"
                "  - {name: wrist, type: revolute, parent: panel, child: tip, origin: {xyz: [2.0, 0, 0]}, axis: [0, 0, 1]}\n")
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "out_of_order.yaml")
            with open(path, "w", encoding="utf-8") as out:
                out.write(text)
            model = skograph.load_model(path)
            q = np.linspace(-0.3, 0.4, len(model.dofs))
            E, A = model.kernel(q).toarray(), model.resolvent(q).toarray()
            self.assertEqual(E.shape, (4 * 6 + 4, 4 * 6 + 4))
            identity = np.eye(E.shape[0])
            self.assertTrue(close(A @ (identity - E), identity, 1e-12))  # part I Eq. 14

    def test_derivatives_against_differences(self):
        model, state = self.model, self.state
        q, qd, tau = state["q"], state["qd"], state["tau"]
        dqdd_dq, dqdd_dqd, _ = model.forward_dynamics_derivatives(q, qd, tau)
        h = 1e-5  # central differences of forward dynamics along qd (q is a vector space
        # on the hinge and modal dofs, columns 6 onwards)
        for j in range(6, len(q)):
            e = np.zeros(len(q))
            e[j] = h
            by_qd = (model.forward_dynamics(q, qd + e, tau) - model.forward_dynamics(q, qd - e, tau)) / (2 * h)
            by_q = (model.forward_dynamics(q + e, qd, tau) - model.forward_dynamics(q - e, qd, tau)) / (2 * h)
            scale = 1 + np.max(np.abs(dqdd_dq))
            np.testing.assert_allclose(dqdd_dqd[:, j], by_qd, rtol=0, atol=1e-6 * scale)
            np.testing.assert_allclose(dqdd_dq[:, j], by_q, rtol=0, atol=1e-6 * scale)


class Batches(unittest.TestCase):
    def test_rows_are_single_calls_on_any_number_of_threads(self):
        rng = np.random.default_rng(7)
        for name in ("humanoid.yaml", "fourbar_chain.yaml"):
            with self.subTest(model=name):
                model = skograph.load_model(os.path.join(MODELS, name))
                n, rows = model.dof_count, 40
                Q = rng.uniform(-0.3, 0.3, (rows, n)) if not model.is_closed_chain else \
                    np.tile(model.read_state(os.path.join(MODELS, "fourbar_chain_state.json"))["q"], (rows, 1))
                QD, X = rng.normal(size=(rows, n)), rng.normal(size=(rows, n))
                single = np.array([model.forward_dynamics(Q[i], QD[i], X[i]) for i in range(rows)])
                single_tau = np.array([model.inverse_dynamics(Q[i], QD[i], X[i]) for i in range(rows)])
                single_mass = np.array([model.mass_matrix(Q[i]) for i in range(rows)])
                lanes_tau = model.inverse_dynamics(Q, QD, X)
                lanes_qdd = model.forward_dynamics(Q, QD, X)
                for threads in (1, 2, 5):
                    # A tree's batches run in SIMD lanes: the same bits on any number of threads,
                    # the single calls' to rounding (id and mass: 1e-13 of the rows' scale; fd:
                    # 1e-13 cond(M) of |qdd| + (|tau| + |C|) / |M|). A closed chain's are the
                    # single calls'.
                    self.assertTrue(np.array_equal(model.forward_dynamics(Q, QD, X, threads=threads), lanes_qdd))
                    self.assertTrue(np.array_equal(model.inverse_dynamics(Q, QD, X, threads=threads), lanes_tau))
                np.testing.assert_allclose(lanes_tau, single_tau, rtol=0,
                                           atol=1e-13 * (1 + np.max(np.abs(single_tau))))
                if model.is_closed_chain:
                    self.assertTrue(np.array_equal(lanes_qdd, single))
                for i in range(0 if model.is_closed_chain else rows):
                    moving = np.diag(single_mass[i]) != 0  # a massless subtree's dofs: zero rows
                    eigenvalues = np.linalg.eigvalsh(single_mass[i][np.ix_(moving, moving)])
                    right = np.max(np.abs(X[i])) + np.max(np.abs(model.bias(Q[i], QD[i])))
                    bound = 1e-13 * eigenvalues[-1] / eigenvalues[0] * (
                        np.max(np.abs(single[i])) + right / eigenvalues[-1])
                    self.assertLessEqual(np.max(np.abs(lanes_qdd[i] - single[i])), bound)
                lanes_mass = model.mass_matrix(Q, threads=3)
                self.assertTrue(np.array_equal(model.mass_matrix(Q), lanes_mass))
                np.testing.assert_allclose(lanes_mass, single_mass, rtol=0,
                                           atol=1e-13 * np.max(np.abs(single_mass)))
                # SKOGRAPH_SIMD=scalar: state by state, bit for bit the single calls.
                saved = os.environ.get("SKOGRAPH_SIMD")
                os.environ["SKOGRAPH_SIMD"] = "scalar"
                try:
                    self.assertTrue(np.array_equal(model.inverse_dynamics(Q, QD, X, threads=2), single_tau))
                    self.assertTrue(np.array_equal(model.mass_matrix(Q, threads=2), single_mass))
                    self.assertTrue(np.array_equal(model.forward_dynamics(Q, QD, X, threads=2), single))
                    os.environ["SKOGRAPH_SIMD"] = "avx9"
                    with self.assertRaisesRegex(skograph.Error, "SKOGRAPH_SIMD must be auto, scalar"):
                        model.inverse_dynamics(Q, QD, X)
                finally:
                    if saved is None:
                        del os.environ["SKOGRAPH_SIMD"]
                    else:
                        os.environ["SKOGRAPH_SIMD"] = saved
                self.assertTrue(np.array_equal(model.bias(Q, QD, threads=2),
                                               np.array([model.bias(Q[i], QD[i]) for i in range(rows)])))
                with self.assertRaises(skograph.Error):
                    model.forward_dynamics(Q, QD[:3], X)

    def test_out_is_written_in_place(self):
        # NumPy's out= idiom: the result written into a given array, returned, the same bits.
        rng = np.random.default_rng(5)
        for name in ("humanoid.yaml", "fourbar_chain.yaml"):
            with self.subTest(model=name):
                model = skograph.load_model(os.path.join(MODELS, name))
                n, rows = model.dof_count, 9
                Q = rng.uniform(-0.3, 0.3, (rows, n)) if not model.is_closed_chain else \
                    np.tile(model.read_state(os.path.join(MODELS, "fourbar_chain_state.json"))["q"], (rows, 1))
                QD, X = rng.normal(size=(rows, n)), rng.normal(size=(rows, n))
                for call, args, shape in ((model.forward_dynamics, (Q, QD, X), (rows, n)),
                                          (model.inverse_dynamics, (Q, QD, X), (rows, n)),
                                          (model.mass_matrix, (Q,), (rows, n, n)),
                                          (model.forward_dynamics, (Q[0], QD[0], X[0]), (n,))):
                    out = np.full(shape, np.nan)
                    result = call(*args, threads=2, out=out)
                    self.assertIs(result, out)
                    self.assertTrue(np.array_equal(out, call(*args, threads=2)))
                wrong = {"float32": np.zeros((rows, n), np.float32), "shape": np.zeros((rows - 1, n)),
                         "strided": np.zeros((rows, 2 * n))[:, ::2], "list": [[0.0] * n] * rows}
                readonly = np.zeros((rows, n))
                readonly.flags.writeable = False
                wrong["readonly"] = readonly
                for what, out in wrong.items():
                    with self.subTest(out=what):
                        with self.assertRaisesRegex(skograph.Error, r"^out must be a writeable C-contiguous "
                                                    rf"float64 array of shape \({rows}, {n}\)$"):
                            model.forward_dynamics(Q, QD, X, out=out)
                with self.assertRaisesRegex(skograph.Error, "^out must not share memory with an input$"):
                    model.inverse_dynamics(Q, QD, X, out=X)

    def test_a_forked_process_batches_on_its_own_workers(self):
        # multiprocessing's and Dask's forked workers: the child has none of the parent's pool
        # threads and starts its own; its rows are the parent's, bit for bit.
        model = skograph.load_model(os.path.join(MODELS, "humanoid.yaml"))
        rng = np.random.default_rng(3)
        Q, QD, X = (rng.uniform(-0.3, 0.3, (64, model.dof_count)) for _ in range(3))
        parent = model.forward_dynamics(Q, QD, X, threads=3)
        child = os.fork()
        if child == 0:
            same = np.array_equal(model.forward_dynamics(Q, QD, X, threads=3), parent)
            os._exit(0 if same else 1)
        _, status = os.waitpid(child, 0)
        self.assertTrue(os.WIFEXITED(status))
        self.assertEqual(os.WEXITSTATUS(status), 0)

    def test_factor_is_fill_free_in_the_canonical_order(self):
        model = skograph.load_model(os.path.join(MODELS, "humanoid.yaml"))
        q = np.linspace(-0.4, 0.4, model.dof_count)
        sparse = model.sparse_mass_matrix(q)
        M = sparse.toarray()
        for ordering in ("canonical", "root-first", "amd"):
            L, perm = model.factor(q, ordering=ordering)
            self.assertTrue(close((L @ L.T).toarray(), M[np.ix_(perm, perm)], 1e-12))
            if ordering == "canonical":
                self.assertEqual(L.nnz, scipy.sparse.tril(sparse).nnz)  # stored entries

    def test_models_pickle_into_worker_processes(self):
        model = skograph.load_model(os.path.join(MODELS, "arm7.urdf"))
        for protocol in range(pickle.HIGHEST_PROTOCOL + 1):  # every protocol, none crashes
            again = pickle.loads(pickle.dumps(model, protocol=protocol))
            self.assertEqual(again.dofs, model.dofs)
        # A damaged state is one skograph.Error, never a crash.
        state = model.__reduce__()[1][0]
        def damaged(change):
            entries = list(state)
            mechanism = dict(entries[7])
            change(entries, mechanism)
            entries[7] = mechanism
            return tuple(entries)
        def first_link(field, value):
            def change(entries, mechanism):
                links = [list(link) for link in mechanism["links"]]
                links[0][field] = value
                mechanism["links"] = [tuple(link) for link in links]
            return change
        for bad in (damaged(first_link(2, [])), damaged(first_link(3, [1.0])),
                    damaged(first_link(4, [1.0])), damaged(first_link(1, float("nan"))),
                    damaged(first_link(1, "heavy")), damaged(lambda e, m: m.pop("joints")),
                    state[:3], (state[0], 99) + tuple(state[2:]), ("other",)):
            with self.assertRaises(skograph.Error):
                skograph._model_from_state(bad)
        # A pickle carries the mechanism, not the path: it unpickles after its files
        # are gone (another machine), in workers of another working directory, and the module's
        # functions map over a process pool.
        scratch = tempfile.mkdtemp(dir=WORK)
        for name in ("fivebar.urdf", "fivebar_loops.yaml"):
            shutil.copy(os.path.join(MODELS, name), scratch)
        closed = skograph.load_model(os.path.join(scratch, "fivebar.urdf"),
                                     loops=os.path.join(scratch, "fivebar_loops.yaml"))
        flyer = skograph.load_model(os.path.join(MODELS, "space_arm.urdf"), base="s_link2")
        mjcf = skograph.load_model(os.path.join(MODELS, "humanoid.xml"))
        pickled = pickle.dumps([closed, flyer, mjcf])
        shutil.rmtree(scratch)
        elsewhere = tempfile.mkdtemp(dir=WORK)
        for original, copy in zip((closed, flyer, mjcf), pickle.loads(pickled)):
            self.assertEqual((copy.dofs, copy.file, copy.base), (original.dofs, original.file,
                                                                original.base))
            n = original.dof_count
            draw = np.random.default_rng(5)
            rows = [(copy, draw.uniform(-0.3, 0.3, n), draw.normal(size=n), draw.normal(size=n))
                    for _ in range(4)]
            with multiprocessing.get_context("spawn").Pool(2, initializer=os.chdir,
                                                           initargs=(elsewhere,)) as pool:
                remote = pool.starmap(skograph.forward_dynamics, rows)
            for (m, q, qd, tau), qdd in zip(rows, remote):
                self.assertTrue(np.array_equal(qdd, original.forward_dynamics(q, qd, tau)))
        rng = np.random.default_rng(3)
        states = [(model, rng.normal(size=7), rng.normal(size=7), rng.normal(size=7)) for _ in range(6)]
        with multiprocessing.get_context("spawn").Pool(2) as pool:
            results = pool.map(forward_in_worker, states)
        for (m, q, qd, tau), qdd in zip(states, results):
            self.assertTrue(np.array_equal(qdd, model.forward_dynamics(q, qd, tau)))


if __name__ == "__main__":
    os.makedirs(WORK, exist_ok=True)
    unittest.main(argv=[sys.argv[0]], verbosity=1)
