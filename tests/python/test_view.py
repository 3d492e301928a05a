#!/usr/bin/python3
"""skograph.view and Model.show against `skograph view`: the same page byte for byte for the same
state or trajectory, and the program's error lines as skograph.Error.

usage: test_view.py SOURCE_DIR WORK_DIR (PYTHONPATH: the module; SKOGRAPH_CLI: the program)"""
import html
import os
import subprocess
import sys
import unittest

import numpy as np

import skograph

SOURCE, WORK = sys.argv[1], sys.argv[2]
CLI = os.environ["SKOGRAPH_CLI"]
MODELS = os.path.join(SOURCE, "examples", "models")


def read(path):
    with open(path, "rb") as f:
        return f.read()


class View(unittest.TestCase):
    def program_page(self, *args):
        out = os.path.join(WORK, "program.html")
        run = subprocess.run([CLI, "view", *args, "--out", out], capture_output=True, text=True)
        self.assertEqual(run.returncode, 0, run.stderr)
        return read(out)

    def test_the_page_is_the_programs(self):
        os.makedirs(WORK, exist_ok=True)
        model_file = os.path.join(MODELS, "stewart_platform.yaml")
        model = skograph.load_model(model_file)
        mine = os.path.join(WORK, "mine.html")
        skograph.view(model, mine)
        self.assertEqual(read(mine), self.program_page(model_file))
        # A state: the zero state's q given explicitly is the same page.
        skograph.view(model, mine, q=np.zeros(len(model.dofs)))
        self.assertEqual(read(mine), self.program_page(model_file))
        fourbar = skograph.load_model(os.path.join(MODELS, "fourbar.yaml"))
        trajectory = os.path.join(MODELS, "fourbar_trajectory.csv")
        skograph.view(fourbar, mine, trajectory=trajectory)
        self.assertEqual(read(mine), self.program_page(os.path.join(MODELS, "fourbar.yaml"),
                                                       "--trajectory", trajectory))

    def test_package_paths_and_meshes_are_the_programs(self):
        # A URDF naming its mesh through package://: package_path as one folder, a list, or a
        # pathlib.Path gives the program's page with --package-path.
        import pathlib
        folder = os.path.join(WORK, "packages", "pendulum_meshes")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(MODELS, "meshes", "fin.obj"), "rb") as mesh, \
                open(os.path.join(folder, "fin.obj"), "wb") as copy:
            copy.write(mesh.read())
        with open(os.path.join(MODELS, "double_pendulum.urdf")) as text:
            urdf = text.read().replace('"meshes/fin.obj"', '"package://pendulum_meshes/fin.obj"')
        model_file = os.path.join(WORK, "pendulum_package.urdf")
        with open(model_file, "w") as out:
            out.write(urdf.replace('"meshes/', '"' + os.path.join(MODELS, "meshes") + "/"))
        model = skograph.load_model(model_file)
        packages = os.path.join(WORK, "packages")
        expected = self.program_page(model_file, "--package-path", packages)
        self.assertIn(b'"file":"package://pendulum_meshes/fin.obj"', expected)
        mine = os.path.join(WORK, "mine_package.html")
        for given in (packages, [packages], pathlib.Path(packages), ["/nonexistent", packages]):
            skograph.view(model, mine, package_path=given)
            self.assertEqual(read(mine), expected if given != ["/nonexistent", packages] else
                             self.program_page(model_file, "--package-path", "/nonexistent",
                                               "--package-path", packages))
        # Without it the mesh is missing: the program's page without the option.
        skograph.view(model, mine)
        self.assertEqual(read(mine), self.program_page(model_file))
        with self.assertRaises(skograph.Error):
            skograph.view(model, mine, package_path=3)
        # analyze's view.html: the same page, with package_path as --package-path.
        folder = os.path.join(WORK, "analyzed_package")
        skograph.analyze(model_file, folder, package_path=pathlib.Path(packages))
        self.assertEqual(read(os.path.join(folder, "view.html")), expected)
        with self.assertRaises(skograph.Error):
            skograph.analyze(model_file, folder, package_path=3)

    def test_a_sweep_is_the_programs(self):
        os.makedirs(WORK, exist_ok=True)
        model_file = os.path.join(MODELS, "delta_robot.yaml")
        model = skograph.load_model(model_file)
        mine = os.path.join(WORK, "mine_sweep.html")
        skograph.view(model, mine, sweep="arm1=0:3:31")
        self.assertEqual(read(mine), self.program_page(model_file, "--sweep", "arm1=0:3:31"))
        self.assertIn(b"Assembly fails from arm1 = 1.2 on", read(mine))
        for bad in ("arm1=0:3", "nothing=0:1:3", 3):
            with self.assertRaises(skograph.Error):
                skograph.view(model, mine, sweep=bad)
        with self.assertRaises(skograph.Error):
            skograph.view(model, mine, sweep="arm1=0:3:31",
                          trajectory=os.path.join(MODELS, "fourbar_trajectory.csv"))

    def test_a_pickled_model_draws_the_same_page(self):
        # The visuals travel with the model (shapes, colours, meshes MuJoCo loaded).
        import pickle
        os.makedirs(WORK, exist_ok=True)
        for name in ("double_pendulum.urdf", "delta_robot.xml"):
            model = skograph.load_model(os.path.join(MODELS, name))
            first, second = os.path.join(WORK, "first.html"), os.path.join(WORK, "second.html")
            skograph.view(model, first)
            skograph.view(pickle.loads(pickle.dumps(model)), second)
            self.assertEqual(read(first), read(second), name)
            self.assertIn(b'"visuals":[{', read(first), name)

    def test_show_holds_the_page_in_an_iframe(self):
        model = skograph.load_model(os.path.join(MODELS, "fourbar.yaml"))
        shown = model.show()
        self.assertTrue(shown.data.startswith('<iframe srcdoc="'))
        self.assertEqual(shown._repr_html_(), shown.data)
        page = html.unescape(shown.data[len('<iframe srcdoc="'):shown.data.index('" style=')])
        self.assertEqual(page.encode(), self.program_page(os.path.join(MODELS, "fourbar.yaml")))

    def test_bad_input_is_the_programs_line(self):
        model = skograph.load_model(os.path.join(MODELS, "fourbar.yaml"))
        bad = os.path.join(WORK, "bad.csv")
        os.makedirs(WORK, exist_ok=True)
        with open(bad, "w") as f:
            f.write("t,crank_joint\n0,1\n")
        out = os.path.join(WORK, "never.html")
        with self.assertRaises(skograph.Error) as raised:
            skograph.view(model, out, trajectory=bad)
        run = subprocess.run([CLI, "view", os.path.join(MODELS, "fourbar.yaml"), "--trajectory",
                              bad, "--out", out], capture_output=True, text=True)
        self.assertEqual(run.returncode, 2)
        self.assertEqual("skograph view: " + str(raised.exception) + "\n", run.stderr)
        self.assertFalse(os.path.exists(out))
        with self.assertRaises(skograph.Error):
            skograph.view(model, out, q=np.zeros(len(model.dofs)), trajectory=bad)
        with self.assertRaises(skograph.Error):
            skograph.view(model, out, q=np.zeros(3))
        with self.assertRaises(skograph.Error):
            skograph.view(model, None)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0]])
