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
from . import _skograph

__all__ = ["Error", "Model", "__version__", "load_model", "analyze_graph", "render", "analyze",
           "view", "forward_dynamics", "inverse_dynamics", "mass_matrix", "bias"]


def _model_from_state(state):
    """A Model from the state its pickle holds (Model.__reduce__): a function of this module, so
    that every pickle protocol can name it."""
    return _skograph._model_from_state(state)


def _warn(messages):
    """The reader's warnings and the notes of a call, as Python warnings."""
    for message in messages:
        _warnings.warn(message, stacklevel=3)


def analyze_graph(path, strict=False, loops=None):
    """The object `skograph graph PATH --json` prints, for a DOT digraph or a model's standard
    digraph. path and loops: str or os.PathLike."""
    text, messages = _skograph._graph_report(path, strict, loops)
    _warn(messages)
    return _json.loads(text)


def _needs_viz(call):
    if not have_viz:
        raise Error(f"this skograph was built without its viz layer, so it has no {call}")


def render(path, output, what, matrix=None, ordering=None, state=None, format=None, size=None,
           strict=False, loops=None):
    """Draws one picture to `output`, as `skograph render PATH --what WHAT -o OUTPUT ...`."""
    _needs_viz("render")
    _warn(_skograph._render(path, output, what, matrix or "", ordering or "", state,
                            format or "", 800 if size is None else size, strict, loops))


def analyze(path, out, state=None, size=None, max_diagram_nodes=None, strict=False,
            independent=None, loops=None, package_path=None):
    """Writes the report and every picture into the folder `out`, as
    `skograph analyze PATH --out OUT` does; view.html's package:// meshes are looked for in
    package_path (a folder or a list of folders, as --package-path)."""
    _needs_viz("analyze")
    _warn(_skograph._analyze(path, out, state, 800 if size is None else size,
                             5000 if max_diagram_nodes is None else max_diagram_nodes, strict,
                             independent, loops, package_path))


def view(model, path, q=None, trajectory=None, package_path=None, sweep=None):
    """Writes the 3D view of `model` to the HTML file `path`, as `skograph view` does: one page
    that opens offline (three.js inlined), the mechanism at q (shape (dofs,); None: the zero
    state), played along `trajectory` (a CSV file as `skograph simulate --out` writes it), or
    along `sweep` 'DOF=LO:HI:N' from q (N closed configurations, as --sweep).
    Closed chains are assembled first. The model file's visual geometry is drawn; mesh files
    named package://PKG/... are looked for in package_path (a folder or a list of folders, as
    --package-path), then above the model's folder. path and trajectory: str or os.PathLike."""
    _needs_viz("view")
    if path is None:
        raise Error("view needs a path to write the page to (Model.show returns it for Jupyter)")
    model._view(path, q, trajectory, package_path, sweep)


class _ViewHTML:
    """What Model.show returns when IPython is not installed: the page in an iframe, shown by
    Jupyter through _repr_html_ (IPython.display.HTML's protocol)."""

    def __init__(self, data):
        self.data = data

    def _repr_html_(self):
        return self.data


# Module-level forms of the dynamics calls: functions of the module pickle by name, so
# multiprocessing's Pool.starmap and Dask can ship them with a model (the class's own
# skograph.Model.forward_dynamics is pybind11's instancemethod, which does not pickle). The model
# pickles as its mechanism: no file is needed on the worker.
def forward_dynamics(model, q, qd, tau, gravity=None, threads=None, solver="embedding"):
    """model.forward_dynamics(q, qd, tau, ...): qdd (same shape as q) for the generalized forces
    tau at (q, qd), in the file's dof order, with one state per row of a 2-D array. This function
    pickles, for process pools."""
    return model.forward_dynamics(q, qd, tau, gravity=gravity, threads=threads, solver=solver)


def inverse_dynamics(model, q, qd, qdd, gravity=None, threads=None):
    """model.inverse_dynamics(q, qd, qdd, ...): tau (same shape as q) that gives qdd at (q, qd);
    for closed chains, the actuator forces at the independent dofs. This function pickles,
    for process pools."""
    return model.inverse_dynamics(q, qd, qdd, gravity=gravity, threads=threads)


def mass_matrix(model, q, threads=None):
    """model.mass_matrix(q, ...): M(q), (dofs, dofs) or (rows, dofs, dofs) for a 2-D q, in the
    file's dof order. This function pickles, for process pools."""
    return model.mass_matrix(q, threads=threads)


def bias(model, q, qd, gravity=None, threads=None):
    """model.bias(q, qd, ...): C(q, qd) with gravity (same shape as q), so that M qdd + C = tau.
    This function pickles, for process pools."""
    return model.bias(q, qd, gravity=gravity, threads=threads)
