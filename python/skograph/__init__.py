"""skograph: graph-theoretic multibody dynamics (A. Jain's SKO models, BWA operators,
constraint embedding of loops) for NumPy and SciPy.

    import skograph
    model = skograph.load_model("examples/models/arm7.urdf")   # any URDF, YAML, MJCF, SDF
    qdd = model.forward_dynamics(q, qd, tau)                   # 1-D: one state
    qdd = model.forward_dynamics(Q, QD, TAU, threads=4)        # 2-D: one state per row
    M = model.sparse_mass_matrix(q)                            # scipy.sparse.csc_matrix
    L, perm = model.factor(q, ordering="canonical")            # fill-free Cholesky factor

Vectors are in the file's dof order (model.dofs), with the meaning `skograph dynamics --json`
gives them (docs/python.md). Errors raise skograph.Error (a ValueError) with the command line's
one-line message.
"""
import json as _json
import warnings as _warnings

from ._skograph import Error, Model, __version__, have_viz, load_model
from ._skograph import _run

__all__ = ["Error", "Model", "__version__", "load_model", "analyze_graph", "render", "analyze"]


def _command(args):
    """Runs a command of the program in-process; its stdout (bytes), or Error with its line."""
    status, out, err = _run([str(a) for a in args])
    lines = [line for line in err.split("\n") if line]
    if status != 0:
        message = lines[0] if lines else f"skograph {args[0]} failed"
        prefix = f"skograph {args[0]}: "
        raise Error(message[len(prefix):] if message.startswith(prefix) else message)
    for line in lines:  # warnings and notes of a successful run
        _warnings.warn(line, stacklevel=3)
    return out


def analyze_graph(path):
    """The `skograph graph PATH --json` object (a DOT digraph or a model's standard digraph)."""
    return _json.loads(_command(["graph", path, "--json"]))


def _options(**options):
    args = []
    for name, value in options.items():
        if value is not None:
            args += ["--" + name.replace("_", "-"), value]
    return args


def render(path, output, what, matrix=None, ordering=None, state=None, format=None, size=None):
    """Draws one picture to `output`, as `skograph render PATH --what WHAT -o OUTPUT ...`."""
    _command(["render", path, "--what", what, "-o", output] +
             _options(matrix=matrix, ordering=ordering, state=state, format=format, size=size))


def analyze(path, out, state=None, size=None, max_diagram_nodes=None, strict=False):
    """The report and every picture into the folder `out`, as `skograph analyze PATH --out OUT`."""
    _command(["analyze", path, "--out", out] + (["--strict"] if strict else []) +
             _options(state=state, size=size, max_diagram_nodes=max_diagram_nodes))
