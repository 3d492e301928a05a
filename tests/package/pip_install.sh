#!/bin/sh
# The Python module by pip. `pip install --no-build-isolation .` into a virtual
# environment with the system's site packages (Debian's NumPy and SciPy), and a wheel by
# `python3 -m build --no-isolation --wheel` installed into a second one; each imported from
# another folder, its version the metadata's, its forward dynamics the build tree's module's.
# setup.py builds the module in BUILD_DIR (SKOGRAPH_CMAKE_BUILD_DIR), as a user's first build
# does in a fresh tree of its own. Usage: pip_install.sh BUILD_DIR SOURCE_DIR WORK_DIR
set -eu
build=$1 source=$2 work=$3
rm -rf "$work" && mkdir -p "$work/elsewhere"
export SKOGRAPH_CMAKE_BUILD_DIR="$build"
/usr/bin/python3 -m venv --system-site-packages "$work/venv"
"$work/venv/bin/pip" install -q --no-build-isolation --no-deps "$source" > "$work/pip.log" 2>&1 ||
  { cat "$work/pip.log"; exit 1; }
/usr/bin/python3 -m build --no-isolation --wheel --outdir "$work/dist" "$source" \
  > "$work/wheel.log" 2>&1 || { tail -30 "$work/wheel.log"; exit 1; }
/usr/bin/python3 -m venv --system-site-packages "$work/wheel_venv"
"$work/wheel_venv/bin/pip" install -q --no-deps "$work"/dist/skograph-*.whl > "$work/wheel_pip.log" 2>&1 ||
  { cat "$work/wheel_pip.log"; exit 1; }
check='
import importlib.metadata, sys
import numpy as np
import skograph
if sys.argv[2] == "installed":  # not the module of the build tree
    assert skograph.__file__.startswith(sys.prefix), skograph.__file__
    assert importlib.metadata.version("skograph") == skograph.__version__
model = skograph.load_model(sys.argv[1])
q = np.linspace(-0.5, 0.5, model.dof_count)
print(" ".join(repr(x) for x in model.forward_dynamics(q, q, q)))
'
reference=$(cd "$work/elsewhere" && PYTHONPATH="$build/python" /usr/bin/python3 -c "$check" \
  "$source/examples/models/humanoid.yaml" tree)
for venv in venv wheel_venv; do
  got=$(cd "$work/elsewhere" &&
    "$work/$venv/bin/python" -c "$check" "$source/examples/models/humanoid.yaml" installed)
  test "$got" = "$reference" || { echo "$venv: the installed module differs"; exit 1; }
done
test -f "$work"/venv/lib/python3*/site-packages/skograph/py.typed
echo "pip install and the wheel: both import and agree"
