"""Write the API reference pages (``docs/api/_generated/*.rst``) at build time.

Every page is derived from the code: the names come from each module's ``__all__`` (or
its public attributes where it has none), so a new public name is documented without
editing the docs, and a public name whose docstring does not render breaks the build.
The ``ftrans.numpy`` page is a table built from the breadth table
(``tests/numpy/breadth_table.py``), the same data the breadth tests run over.
"""
from __future__ import annotations

import importlib
import inspect
import types
from pathlib import Path

# NumPy names in ftrans.numpy that are not breadth-table rows, by why they have none.
_NO_ROW = {
    "constructor (no differentiable input)": [
        "arange", "array", "asarray", "empty", "empty_like", "eye", "full", "full_like",
        "identity", "linspace", "ones", "ones_like", "zeros", "zeros_like", "meshgrid"],
    "integer or boolean result (no tangent space)": [
        "argmax", "argmin", "equal", "greater", "greater_equal", "isfinite", "isinf",
        "isnan", "less", "less_equal", "logical_and", "logical_not", "logical_or",
        "logical_xor", "not_equal", "floor_divide", "count_nonzero", "argsort",
        "argpartition", "nanargmax", "nanargmin"],
    "metadata (returns a Python value)": ["ndim", "shape", "size", "result_type"],
    "zero derivative by definition": ["stop_gradient"],
}
_NO_ROW_OF = {n: why for why, names in _NO_ROW.items() for n in names}


def _public(mod):
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    out = []
    for n in names:
        try:
            obj = getattr(mod, n)
        except ImportError:             # a lazily imported optional backend (CuPy)
            continue
        # names imported from elsewhere into a module without __all__ (np, warnings...)
        if isinstance(obj, types.ModuleType) and not obj.__name__.startswith("ftrans"):
            continue
        if getattr(mod, "__all__", None) is None and inspect.isfunction(obj) and \
                not getattr(obj, "__module__", "").startswith("ftrans"):
            continue
        if n == "annotations":          # `from __future__ import annotations`
            continue
        out.append(n)
    return out


# Constants: their type's docstring (e.g. numpy.dtype's) says nothing about them.
_DATA_DOCS = {
    "float0": "The dtype of the gradient of an integer or boolean input under "
              "``grad(..., allow_int=True)``: zero bytes per element, so it holds no "
              "number (JAX's ``float0``).",
}
_SEEN_CLASSES: dict = {}


# modules of type aliases: each alias is documented by its ``#:`` comment in the source
_ALIAS_MODULES = ("ftrans.typing", "ftrans.compat.types")
_DATA_DOCS["NDArray"] = ("NumPy's generic array type, ``NDArray[np.float64]`` "
                         "(``numpy.typing.NDArray``, re-exported).")


def _directive(modname, name, obj):
    if isinstance(obj, types.ModuleType):
        return None
    if modname in _ALIAS_MODULES:
        if name in _DATA_DOCS:
            return f".. py:data:: {name}\n\n   {_DATA_DOCS[name]}\n"
        return f".. autodata:: {modname}.{name}\n   :no-value:\n"
    if inspect.isclass(obj):
        d = f".. autoclass:: {modname}.{name}\n"
        # a class re-exported by two documented modules (compat.no_grad is
        # compat.autograd.no_grad): index it where it is documented first
        if _SEEN_CLASSES.setdefault(id(obj), f"{modname}.{name}") != f"{modname}.{name}":
            d += "   :no-index:\n"
        return d
    if callable(obj):
        return f".. autofunction:: {modname}.{name}\n"
    doc = _DATA_DOCS.get(name, f"A constant of type ``{type(obj).__name__}``.")
    return f".. py:data:: {name}\n\n   {doc}\n"


def _title(text, ch="="):
    return f"{text}\n{ch * len(text)}\n"


def _module_page(modname, intro, sections=None, members_of=(), exclude=()):
    """A page documenting every public name of ``modname`` (modules get a link only)."""
    mod = importlib.import_module(modname)
    lines = [_title(f"``{modname}``"), f".. module:: {modname}\n", intro, ""]
    names = [n for n in _public(mod) if n not in exclude]
    sections = sections or {"": names}
    seen = set()
    for heading, group in sections.items():
        group = [n for n in group if n in names]
        if heading and group:
            lines.append(_title(heading, "-"))
        for n in group:
            seen.add(n)
            obj = getattr(mod, n)   # (already imported by _public)
            d = _directive(modname, n, obj)
            if d is None:
                continue
            if inspect.isclass(obj) and n in members_of:
                d += "   :members:\n"
            lines.append(d)
    rest = [n for n in names if n not in seen]
    if rest:
        lines.append(_title("Other names", "-"))
        for n in rest:
            d = _directive(modname, n, getattr(mod, n))
            if d:
                lines.append(d)
    return "\n".join(lines)


def _ftrans_page():
    sections = {
        "Differentiation": ["grad", "value_and_grad", "vjp", "jvp", "linearize"],
        "Vectorization": ["vmap"],
        "Jacobians and Hessians": ["jacfwd", "jacrev", "jacobian", "hessian", "hvp"],
        "Custom derivative rules": ["custom_jvp", "custom_vjp", "custom_root"],
        "Host callbacks": ["pure_callback", "ShapeDtypeStruct"],
        "Checkpointing and gradient control": ["checkpoint", "remat", "stop_gradient"],
        "Staging and compilation": ["jit", "make_ir", "make_jaxpr", "eval_shape", "disable_jit"],
        "Debugging": ["debug_nans", "typeof", "block_until_ready"],
        "Values and errors": ["float0", "EscapedTracerError", "TracerArrayConversionError",
                              "ConcretizationError"],
    }
    intro = ("The functional transforms.  ``ftrans.numpy`` is documented in "
             ":doc:`numpy`, ``ftrans.lax`` in :doc:`lax`, ``ftrans.testing`` in "
             ":doc:`testing`, ``ftrans.tree_util`` in :doc:`tree_util` (``ftrans.tree`` "
             "and ``ftrans.flatten_util`` in :doc:`tree` and :doc:`flatten_util`), "
             "checkpoint policies in :doc:`checkpoint_policies`, execution-time printing "
             "(``ftrans.debug.print``) in :doc:`debug` and "
             "``ftrans.dask`` in :doc:`dask`.  ``ftrans.config.update(name, value)`` sets "
             "the options (``\"debug_nans\"``, as JAX's ``jax.config``).")
    return _module_page("ftrans", intro, sections)


def _status(rows):
    grad_rows = [r for r in rows if r.grad]
    if grad_rows:
        order = max(r.order for r in grad_rows)
        status = f"order {order}, fwd + rev"
    else:
        status = "values only (no gradient check)"
    cplx = "yes" if any(r.complex for r in rows) else ""
    vmap = "yes" if any(r.batch for r in rows) else ""
    jax = "yes" if any(r.jax_fn is not None for r in rows) else ""
    return status, cplx, vmap, jax


def _numpy_page():
    import breadth_table
    import ftrans.numpy as fnp

    by_name = {}
    for row in breadth_table.ROWS:
        by_name.setdefault(row.name, []).append(row)

    def table(prefix, mod):
        names = sorted(n for n in dir(mod) if not n.startswith("_")
                       and callable(getattr(mod, n))
                       and not isinstance(getattr(mod, n), (type, types.ModuleType)))
        out = [".. list-table::", "   :header-rows: 1", "   :widths: 22 30 10 10 10", "",
               "   * - name", "     - derivatives checked (finite differences)",
               "     - complex", "     - vmap", "     - vs JAX"]
        for n in names:
            rows = by_name.get(prefix + n)
            if rows:
                status, cplx, vmap, jax = _status(rows)
            else:
                status, cplx, vmap, jax = _NO_ROW_OF.get(n, "not in the breadth table"), \
                    "", "", ""
            out += [f"   * - ``{prefix}{n}``", f"     - {status}", f"     - {cplx}",
                    f"     - {vmap}", f"     - {jax}"]
        return "\n".join(out) + "\n"

    intro = """\
``import ftrans.numpy as fnp`` mirrors NumPy's names, signatures, broadcasting and type
promotion; every function is written in ftrans primitives, so it can be differentiated
(forward and reverse mode, to any order) and vectorized with :func:`ftrans.vmap`.  A
NumPy name that ``fnp`` lacks raises :class:`AttributeError` naming it, never a silent
NumPy fallback.  Each function's documentation is NumPy's; what ftrans adds is the
derivative, and this table (generated from the breadth table
``tests/numpy/breadth_table.py``, the data the breadth tests are parametrized over) says
how each name is tested:

* **derivatives checked**: :func:`ftrans.testing.check_grads` against central finite
  differences, in forward and reverse mode, to the order given, in float64 and float32;
* **complex**: also checked on complex128/complex64 inputs (PyTorch's convention);
* **vmap**: the batching rule checked against a Python loop;
* **vs JAX**: values, JVP and VJP compared with JAX in float64 (when JAX is installed).
"""
    import ftrans.numpy.linalg as la
    import ftrans.numpy.fft as fft
    return "\n".join([
        _title("``ftrans.numpy``"), ".. module:: ftrans.numpy\n", intro,
        _title("Top level", "-"), table("", fnp),
        _title("``ftrans.numpy.linalg``", "-"), ".. module:: ftrans.numpy.linalg\n",
        table("linalg.", la),
        _title("``ftrans.numpy.fft``", "-"), ".. module:: ftrans.numpy.fft\n",
        table("fft.", fft),
    ])


def _compat_page():
    intro = ("``import ftrans.compat as torch``: the PyTorch-compatible imperative layer. "
             "Behaviour, error types and the meaning of every argument follow PyTorch's "
             "documentation; the tensor class is documented in :doc:`compat_tensor`, "
             "``torch.autograd`` in :doc:`compat_autograd`, ``torch.nn`` in "
             ":doc:`compat_nn`, ``torch.optim`` in :doc:`compat_optim`, "
             "``torch.utils.data`` in :doc:`compat_data`, ``torch.func`` in "
             ":doc:`compat_func`, ``torch.linalg`` in :doc:`compat_linalg`, ``torch.fft`` in "
             ":doc:`compat_fft`, ``torch.special`` in :doc:`compat_special`, "
             "``torch.signal.windows`` in :doc:`compat_signal`, ``torch.distributions`` "
             "in :doc:`compat_distributions`, and ``torch.compiler``/``torch._dynamo`` in "
             ":doc:`compat_compiler`.")
    return _module_page("ftrans.compat", intro, exclude=("Tensor",))


def _compat_tensor_page():
    return "\n".join([_title("``ftrans.compat.Tensor``"),
                      ".. currentmodule:: ftrans.compat\n",
                      ".. autoclass:: ftrans.compat.Tensor\n   :members:\n   :undoc-members:\n"])


def _compat_autograd_page():
    parts = [_module_page("ftrans.compat.autograd",
                          "``torch.autograd``: gradients of the dynamic graph.")]
    for sub in ("functional", "forward_ad", "graph", "profiler", "profiler_util", "anomaly_mode"):
        modname = f"ftrans.compat.autograd.{sub}"
        page = _module_page(modname, "")
        # demote the submodule's title to a section of this page
        page = page.replace(_title(f"``{modname}``"), _title(f"``{modname}``", "-"), 1)
        parts.append(page)
    return "\n".join(parts)


def _lax_page():
    intro = ("Structured control flow as primitives, with JAX's ``jax.lax`` signatures: "
             "branches and loops that stage inside :func:`ftrans.jit` and work under every "
             "transform.  The user guide's :doc:`../../guide/jit` explains when to use "
             "them.  The elementwise, structural and reduction operations are strict "
             "front ends of ftrans's primitives with ``jax.lax``'s dtype and shape rules.")
    sections = {
        "Control flow": ["cond", "switch", "select", "while_loop", "fori_loop", "scan", "map",
                         "associative_scan"],
        "Dynamic slicing (traced start indices)": [
            "dynamic_slice", "dynamic_update_slice", "dynamic_slice_in_dim",
            "dynamic_update_slice_in_dim", "dynamic_index_in_dim"],
        "Convolution and windowed reductions": [
            "conv_general_dilated", "reduce_window", "reduce_window_sum", "reduce_window_max"],
        "Elementwise operations (no promotion, no rank broadcasting)": [
            "add", "sub", "mul", "div", "neg", "exp", "log", "sin", "cos", "tanh", "max",
            "min", "pow", "integer_pow", "sqrt", "rsqrt", "abs", "sign", "floor", "ceil",
            "round", "RoundingMethod", "erf", "clamp", "select_n", "convert_element_type",
            "stop_gradient"],
        "Contractions": ["dot", "dot_general"],
        "Structural operations": ["broadcast_in_dim", "reshape", "transpose", "slice",
                                  "concatenate", "pad"],
        "Reductions": ["reduce_sum", "reduce_max", "reduce_min", "reduce_prod"],
        "Primitives": ["cond_p", "while_p", "scan_p"],
    }
    return _module_page("ftrans.lax", intro, sections)


def _dask_page():
    intro = ("Fitting on chunked ``dask.array`` data in one call: :class:`Objective` (a "
             "per-row or per-chunk loss, reduced by the library, with a penalty; value, "
             "gradient and Hessian-vector products as NumPy arrays) and :func:`minimize` "
             "(SciPy's optimizers on it); and the per-chunk value and gradient of a sum "
             "over rows.  The transforms of :doc:`ftrans` also work on Dask arrays "
             "directly (operation by operation, lazily); :doc:`../../guide/dask` compares "
             "the two.")
    return _module_page("ftrans.dask", intro, members_of=("Objective",))


def _compiler_page():
    intro = ("IR -> executable: what :func:`ftrans.jit` hands its staged programs to.  "
             "See :doc:`../../guide/jit`.")
    return _module_page("ftrans.compiler", intro)


def _subpages(title_mod, intro, subs, members_of=()):
    """One page: ``title_mod`` and its submodules ``subs`` as sections."""
    parts = [_module_page(title_mod, intro, members_of=members_of)]
    for sub in subs:
        modname = f"{title_mod}.{sub}"
        page = _module_page(modname, "", members_of=members_of)
        page = page.replace(_title(f"``{modname}``"), _title(f"``{modname}``", "-"), 1)
        parts.append(page)
    return "\n".join(parts)


def _compat_nn_page():
    return _subpages(
        "ftrans.compat.nn",
        "``torch.nn``: modules, layers, losses, and the functional forms of the layers. "
        "See :doc:`../../guide/compat_nn` for a training loop.",
        ("functional", "init", "utils", "utils.rnn"), members_of=("Module",))


def _compat_optim_page():
    return _subpages("ftrans.compat.optim",
                     "``torch.optim``: optimizers and learning-rate schedulers.",
                     ("lr_scheduler",), members_of=("Optimizer",))


def _compat_data_page():
    return _module_page("ftrans.compat.utils.data",
                        "``torch.utils.data``: datasets, samplers and ``DataLoader``.")


def _compat_func_page():
    return _module_page("ftrans.compat.func",
                        "``torch.func``: the functional transforms over compat tensors.")


def generate(outdir: Path):
    outdir = Path(outdir)
    _SEEN_CLASSES.clear()
    outdir.mkdir(parents=True, exist_ok=True)
    pages = {
        "ftrans": _ftrans_page(),
        "tree_util": _module_page("ftrans.tree_util", "Pytrees: nested containers of arrays."),
        "typing": _module_page("ftrans.typing", (importlib.import_module("ftrans.typing")
                                                 .__doc__ or "").split("\n\n", 1)[1]),
        "numpy": _numpy_page(),
        "scipy": _module_page("ftrans.scipy.special",
                              "``import ftrans.scipy.special as fss``: differentiable "
                              "counterparts of :mod:`scipy.special` functions."),
        "scipy_stats": _subpages(
            "ftrans.scipy.stats",
            "``import ftrans.scipy.stats as fst``: probability distributions with SciPy's "
            "argument order and ``loc``/``scale`` conventions (``fst.norm.logpdf(x, loc, "
            "scale)``), differentiable in the data and every continuous parameter.",
            tuple(importlib.import_module("ftrans.scipy.stats").__all__)),
        "scipy_signal": _module_page("ftrans.scipy.signal", "Convolution and linear "
                                     "filtering (``scipy.signal``), differentiable."),
        "scipy_linalg": _module_page("ftrans.scipy.linalg", "``scipy.linalg``'s matrix "
                                     "functions, equation solvers and factorizations, "
                                     "differentiable."),
        "scipy_integrate": _module_page("ftrans.scipy.integrate", "Quadrature, and ODE "
                                        "solutions (SciPy's solvers) with gradients by the "
                                        "adjoint method and forward mode by sensitivities."),
        "scipy_optimize": _module_page("ftrans.scipy.optimize", "SciPy's ``minimize`` and "
                                       "``root`` with solutions differentiable by the "
                                       "implicit function theorem."),
        "testing": _module_page("ftrans.testing", "Check derivatives with finite differences."),
        "nn": _module_page("ftrans.nn", "Functional neural-network operations (``jax.nn`` and "
                           "``torch.nn.functional``): each written once as a composition of "
                           "primitives, fused kernels as ``custom_vjp`` implementations."),
        "optim": _module_page("ftrans.optim", "Functional optimizers over pytrees in optax's "
                              "``init``/``update`` style, with PyTorch's update formulas."),
        "random": _module_page("ftrans.random", "Explicit, splittable PRNG keys (JAX's model, "
                               "Threefry-2x32): reproducible under ``vmap`` and ``jit``."),
        "compat": _compat_page(),
        "compat_tensor": _compat_tensor_page(),
        "compat_autograd": _compat_autograd_page(),
        "compat_nn": _compat_nn_page(),
        "compat_optim": _compat_optim_page(),
        "compat_data": _compat_data_page(),
        "compat_func": _compat_func_page(),
        "compat_linalg": _module_page("ftrans.compat.linalg", "``torch.linalg`` on "
                                      "``ftrans.numpy.linalg`` and ``ftrans.scipy.linalg``."),
        "compat_types": _module_page("ftrans.compat.types", "``torch.types``: the aliases "
                                     "compat's annotations use (``Tensor``, ``Size``, "
                                     "``device`` and ``dtype`` are documented in "
                                     ":doc:`compat` and :doc:`compat_tensor`).",
                                     exclude=("Tensor", "Size", "device", "dtype")),
        "compat_fft": _module_page("ftrans.compat.fft", "``torch.fft`` on ``ftrans.numpy.fft``."),
        "compat_special": _module_page("ftrans.compat.special", "``torch.special`` on "
                                       "``ftrans.scipy.special``."),
        "compat_signal": _module_page("ftrans.compat.signal.windows",
                                      "``torch.signal.windows``: window functions."),
        "compat_distributions": _module_page("ftrans.compat.distributions",
                                             "``torch.distributions`` on "
                                             "``ftrans.scipy.stats`` and ``ftrans.random``."),
        "compat_compiler": "\n".join([
            _module_page("ftrans.compat.compiler",
                         "``torch.compiler``: the controls of ``compat.compile`` (its "
                         "guide: :doc:`../../guide/compat_compile`)."),
            _module_page("ftrans.compat._dynamo",
                         "``torch._dynamo``: ``explain``, ``config``, ``exc``, "
                         "``graph_break`` and the counters.").replace(
                _title("``ftrans.compat._dynamo``"), _title("``ftrans.compat._dynamo``", "-"),
                1)]),
        "lax": _lax_page(),
        "dask": _dask_page(),
        "compiler": _compiler_page(),
    }
    # a public submodule of ftrans without a page of its own above (one added later,
    # e.g. ftrans.lax) still gets one, listing all of its public names
    import ftrans
    for name in getattr(ftrans, "__all__", ()):
        obj = getattr(ftrans, name, None)
        if isinstance(obj, types.ModuleType) and name not in pages \
                and f"ftrans.{name}" not in ("ftrans.scipy",):
            pages[name] = _module_page(f"ftrans.{name}", (obj.__doc__ or "").split("\n")[0])
    toc = [_title("API reference"),
           "Generated from the docstrings of every public name (each module's "
           "``__all__``).\n", ".. toctree::", "   :maxdepth: 1", ""]
    pages = {"index": "\n".join(toc + [f"   {name}" for name in pages]) + "\n", **pages}
    for name, text in pages.items():
        path = outdir / f"{name}.rst"
        if not path.exists() or path.read_text() != text:   # keep Sphinx's cache warm
            path.write_text(text)
