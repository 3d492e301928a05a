"""setuptools' side of pyproject.toml: the compiled module by CMake (its skograph_python target,
the libraries linked statically into it), copied with the pure-Python package into the wheel.

SKOGRAPH_CMAKE_BUILD_DIR names an existing CMake build tree to build in (the tests reuse
build/); otherwise a fresh one under setuptools' build directory. SKOGRAPH_CMAKE_JOBS: parallel
jobs (default 2).
"""
import glob
import os
import shutil
import subprocess
import sys

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py


class BuildWithCMake(build_py):
    """The pure-Python files as usual, then _skograph*.so from CMake next to them."""

    def run(self):
        super().run()
        source = os.path.dirname(os.path.abspath(__file__))
        build = os.environ.get("SKOGRAPH_CMAKE_BUILD_DIR")
        if not build:
            # A tree of its own, configured every time (incremental): a failed or partial earlier
            # configuration is redone, and the module is built for this interpreter.
            build = os.path.join(os.path.abspath(self.build_lib), "..", "cmake")
            subprocess.run(["cmake", "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                            "-DSKOGRAPH_BUILD_TESTS=OFF", "-DSKOGRAPH_BUILD_BENCHMARKS=OFF",
                            "-DSKOGRAPH_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"],
                           check=True)
        jobs = os.environ.get("SKOGRAPH_CMAKE_JOBS", "2")
        subprocess.run(["cmake", "--build", build, "--target", "skograph_python", "-j", jobs],
                       check=True)
        package = os.path.join(self.build_lib, "skograph")
        built = glob.glob(os.path.join(build, "python", "skograph", "_skograph*.so"))
        if not built:
            raise RuntimeError(f"CMake built no Python module in {build}/python/skograph")
        for module in built:
            shutil.copy2(module, package)


class BinaryDistribution(Distribution):
    """A wheel for this platform and interpreter: the package holds a compiled module."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution,
      package_data={"skograph": ["*.pyi", "py.typed"]})
