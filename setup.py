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

from setuptools import Distribution, setup
from setuptools.command.build_py import build_py


class BuildWithCMake(build_py):
    """The pure-Python files as usual, then _skograph*.so from CMake next to them."""

    def run(self):
        super().run()
        source = os.path.dirname(os.path.abspath(__file__))
        build = os.environ.get("SKOGRAPH_CMAKE_BUILD_DIR") or os.path.join(
            os.path.abspath(self.build_lib), "..", "cmake")
        if not os.path.exists(os.path.join(build, "CMakeCache.txt")):
            subprocess.run(["cmake", "-S", source, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                            "-DSKOGRAPH_BUILD_TESTS=OFF", "-DSKOGRAPH_BUILD_BENCHMARKS=OFF"],
                           check=True)
        jobs = os.environ.get("SKOGRAPH_CMAKE_JOBS", "2")
        subprocess.run(["cmake", "--build", build, "--target", "skograph_python", "-j", jobs],
                       check=True)
        package = os.path.join(self.build_lib, "skograph")
        for built in glob.glob(os.path.join(build, "python", "skograph", "_skograph*.so")):
            shutil.copy2(built, package)


class BinaryDistribution(Distribution):
    """A wheel for this platform and interpreter: the package holds a compiled module."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithCMake}, distclass=BinaryDistribution,
      package_data={"skograph": ["*.pyi", "py.typed"]})
