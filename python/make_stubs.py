#!/usr/bin/python3
"""Writes the type stubs of the skograph package: mypy's stubgen (Debian's mypy) on the
built module, then made valid for type checkers: pybind11's Eigen annotations
(numpy.ndarray[numpy.float64[m,1]]) become numpy.ndarray, and what stubgen cannot see is said.

usage: make_stubs.py BUILD_PYTHON_DIR OUT_DIR    (OUT_DIR/skograph/__init__.pyi, _skograph.pyi)
The committed python/skograph/*.pyi are its output; tests/CMakeLists.txt checks they are current.
"""
import os
import re
import subprocess
import sys
import tempfile


def main():
    build, out = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as work:
        env = dict(os.environ, PYTHONPATH=build)
        subprocess.run(["stubgen", "-q", "-p", "skograph", "-o", work], env=env, check=True)
        for name in ("__init__.pyi", "_skograph.pyi"):
            with open(os.path.join(work, "skograph", name), encoding="utf-8") as f:
                text = f.read()
            text = re.sub(r"numpy\.ndarray\[numpy\.float64(\[[^\]]*\])?\]", "numpy.ndarray", text)
            text = text.replace("def mass(self) -> Any: ...", "def mass(self) -> float: ...")
            if name == "__init__.pyi":
                text = text.replace(
                    "from ._skograph import Error as Error, Model as Model, load_model as load_model",
                    "from ._skograph import Error as Error, Model as Model, load_model as load_model, "
                    "have_viz as have_viz\n\n__version__: str")
            if "Any" not in text.replace("from typing import Any, ", ""):
                text = text.replace("from typing import Any, ", "from typing import ")
            os.makedirs(os.path.join(out, "skograph"), exist_ok=True)
            with open(os.path.join(out, "skograph", name), "w", encoding="utf-8") as f:
                f.write(text)


if __name__ == "__main__":
    main()
