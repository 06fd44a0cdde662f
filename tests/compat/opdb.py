"""PyTorch's operator database (``op_db``) as the specification of ``ftrans.compat``.

For each ``OpInfo`` in ``torch.testing._internal.common_methods_invocations.op_db`` and its
``sample_inputs`` this harness runs the operator in torch and in compat on the same values
and compares:

* **values**: output structure, dtype, shape and values (float32 results entry by entry,
  or relative to the array's largest entry where a whole-array algorithm -- a matrix
  exponential, a scan -- rounds differently; random operators -- whose output
  changes with torch's seed -- by structure, dtype and shape only); outputs pass through the
  sample's ``output_process_fn_grad`` first, which makes gauge-dependent results (SVD's
  singular vectors, eigenvectors) comparable;
* **gradients**: ``autograd.grad`` of the differentiable outputs against the same random
  cotangents, for every input that requires grad (float64, float32, complex128 where the
  operator supports autograd);
* **second derivatives** (``create_graph=True``, ops with ``supports_gradgrad``), **forward
  mode** (``autograd.forward_ad``, ops with ``supports_forward_ad``) and the **functional
  path** (``compat.func.vjp``): on the first float64 sample of each operator;
* **error inputs** (``error_inputs``): compat must raise an exception of torch's type.

An operator is found in compat under its op_db name (``linalg.solve`` ->
``ftrans.compat.linalg.solve``, a method name -> ``Tensor.<name>``); an op_db entry whose
``op`` is a lambda written in torch's test modules (``lambda x: x.mH``) runs with its global
``torch`` bound to ``ftrans.compat``.

Statuses: ``pass``; ``fail`` (the first disagreement is the reason); ``missing`` (compat
has no such name); ``torch-refuses`` (torch's CPU build has no dtype or no sample for it);
``excluded`` (``masked.*``, ``sparse.*``, the CUDA-only ``jiterator_*`` entries and
private aten entries -- names starting with ``_`` or ``torch.ops``, and entries that are or
call ``torch.ops.aten`` overloads -- outside the contract of issue 23).

Command line::

    python tests/compat/opdb.py                    # every operator, the summary per namespace
    python tests/compat/opdb.py --ops sort,topk -v # some operators, each failure printed
    python tests/compat/opdb.py --all-samples      # every sample (default: a few per dtype)

``tests/compat/test_opdb.py`` runs the same checks under pytest.
"""
from __future__ import annotations

import collections
import contextlib
import math
import re
import sys
import types
import warnings

import numpy as np

try:
    import torch
    from torch.testing._internal.common_methods_invocations import op_db as _OP_DB
except ImportError:  # pragma: no cover - the differential suite is skipped without torch
    torch = None
    _OP_DB = []

if __name__ == "__main__":   # run as a script: the checkout this file is in
    import pathlib
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))
import ftrans.compat as fc  # noqa: E402

SAMPLES = {"float64": 3, "float32": 2, "complex128": 2}   # samples per dtype (sampled mode)
TOL = {"float64": (1e-5, 1e-7), "float32": (1e-3, 1e-4), "complex128": (1e-5, 1e-7)}
_EXCLUDED_PREFIXES = ("masked.", "sparse.", "jiterator_", "torch.ops.", "torch._", "_")


class Skip(Exception):
    """This sample cannot be compared (torch itself fails on it, or it uses a torch object
    compat does not model such as a Generator)."""


class Mismatch(AssertionError):
    pass


class Missing(Exception):
    """compat lacks a name the operator's op_db entry calls (a module attribute, a Tensor
    method or property)."""


_MISSING = re.compile(r"module 'ftrans\.compat[\w.]*' has no attribute|"
                      r"'Tensor' object has no attribute|type object 'Tensor' has no attribute")


def full_name(op):
    return op.name + ("/" + op.variant_test_name if op.variant_test_name else "")


def namespace(op):
    n = op.name
    if n.startswith("nn.functional."):
        return "nn.functional"
    return n.split(".")[0] if "." in n else "torch"


def ops():
    """The op_db entries in scope, keyed by full name (``name/variant``)."""
    return {full_name(op): op for op in _OP_DB}


def excluded(op):
    """masked/sparse/jiterator entries, private names, and entries that are aten's internal
    operator overloads (``aten.native_dropout_backward.default``) or call them
    (``torch.ops.aten.max_pool2d_with_indices_backward``): not public torch API."""
    if op.name.startswith(_EXCLUDED_PREFIXES):
        return True
    if isinstance(op.op, torch._ops.OpOverload):
        return True
    code = getattr(op.op, "__code__", None)
    return code is not None and "ops" in code.co_names and "aten" in code.co_names


# ----------------------------------------------------------------------- torch -> compat values
_DTYPES = None


def _dtype_map():
    global _DTYPES
    if _DTYPES is None:
        _DTYPES = {}
        for n in dir(torch):
            v = getattr(torch, n)
            if isinstance(v, torch.dtype) and hasattr(fc, n):
                _DTYPES[v] = getattr(fc, n)
    return _DTYPES


class Leaves(list):
    """``(torch_tensor, compat_tensor)`` pairs of the inputs that require grad, and the
    compat tensor made for each torch tensor (one object passed twice -- ``out=`` the
    input -- stays one object)."""

    def __init__(self, views=False):
        super().__init__()
        self.memo = {}
        self.views = views   # torch views become compat views of one converted base


def to_compat(v, leaves):
    """``v`` with torch tensors, dtypes, sizes and devices replaced by compat's; ``leaves``
    (a :class:`Leaves`) collects the tensors that require grad."""
    if isinstance(v, torch.Tensor):
        if id(v) in leaves.memo:
            return leaves.memo[id(v)]
        if leaves.views and hasattr(fc, "as_strided") and not v.requires_grad \
                and v.layout == torch.strided \
                and v.dtype != torch.bfloat16 and not v.is_quantized and v.device.type == "cpu" \
                and not v.is_conj() and not v.is_neg() and v.dim() <= 64:
            # one compat array per torch storage, each tensor a strided view of it: an
            # out= that aliases an input (a view, or the storage) stays aliased
            key = ("storage", v.untyped_storage().data_ptr(), v.dtype)
            if key not in leaves.memo:
                flat = torch.empty(0, dtype=v.dtype).set_(v.untyped_storage())
                leaves.memo[key] = fc.tensor(flat.numpy().copy())
            try:
                t = fc.as_strided(leaves.memo[key], tuple(v.shape), tuple(v.stride()),
                                  v.storage_offset())
            except RuntimeError:   # a storage smaller than the tensor (torch's resize cases)
                t = None
            if t is not None:
                leaves.memo[id(v)] = t
                return t
        if v.layout != torch.strided or v.dtype in (torch.bfloat16,) or v.is_quantized:
            raise Skip(f"input of layout/dtype {v.layout}/{v.dtype}")
        if v.device.type != "cpu":   # meta tensors of error inputs (torch.gradient's)
            raise Skip(f"input on device {v.device}")
        try:
            arr = v.detach().resolve_conj().resolve_neg().numpy().copy()
        except (ValueError, RuntimeError) as e:   # NumPy's 64-dimension limit ...
            raise Skip(f"input NumPy cannot hold: {e}") from None
        t = fc.tensor(arr, requires_grad=v.requires_grad)
        leaves.memo[id(v)] = t
        if v.requires_grad:
            leaves.append((v, t))
        return t
    if isinstance(v, torch.dtype):
        m = _dtype_map()
        if v not in m:
            raise Skip(f"dtype {v} has no compat counterpart")
        return m[v]
    if isinstance(v, torch.Size):
        return fc.Size(tuple(v))
    if isinstance(v, torch.device):
        return fc.device(str(v))
    if isinstance(v, torch.Generator):
        raise Skip("a torch.Generator argument")
    if isinstance(v, (torch.memory_format, torch.layout)):
        name = str(v).split(".")[-1]
        if not hasattr(fc, name):
            raise Skip(f"{v} has no compat counterpart")
        return getattr(fc, name)
    if isinstance(v, tuple) and hasattr(v, "_fields"):
        return type(v)(*(to_compat(x, leaves) for x in v))
    if isinstance(v, (list, tuple)):
        return type(v)(to_compat(x, leaves) for x in v)
    if isinstance(v, dict):
        return {k: to_compat(x, leaves) for k, x in v.items()}
    if callable(v) and getattr(v, "__module__", "") and str(v.__module__).startswith("torch"):
        return _rebound(v) or _resolve_path(_torch_path(v))
    return v


def _torch_path(f):
    """The dotted name of a torch function under ``torch`` (``nn.functional.relu``)."""
    mod = getattr(f, "__module__", "") or ""
    name = getattr(f, "__name__", "")
    for prefix in ("torch.nn.functional", "torch.linalg", "torch.special", "torch.fft"):
        if mod.startswith(prefix) or mod == prefix.replace("torch.", "torch._C._"):
            return prefix[len("torch."):] + "." + name
    return name


def _resolve_path(path):
    obj = fc
    for part in path.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            return None
    return obj


def _rebound(f):
    """A function written in torch's test modules (an op_db lambda, an output-processing
    function) with its global ``torch`` (and ``F``) bound to compat; None for others."""
    code = getattr(f, "__code__", None)
    if code is None or not str(getattr(f, "__module__", "")).startswith("torch.testing"):
        return None
    g = dict(f.__globals__)
    g["torch"] = fc
    if "F" in g:
        g["F"] = fc.nn.functional
    closure = f.__closure__
    if closure:
        cells = []
        for c in closure:
            try:
                val = c.cell_contents
            except ValueError:
                val = None
            if val is torch:
                val = fc
            elif callable(val) and str(getattr(val, "__module__", "")).startswith("torch") \
                    and not isinstance(val, type):
                val = _rebound(val) or _resolve_path(_torch_path(val)) or val
            cells.append(types.CellType(val))
        closure = tuple(cells)
    return types.FunctionType(code, g, f.__name__, f.__defaults__, closure)


def compat_callable(op):
    """``op``'s counterpart in compat: ``(callable, how)`` or ``(None, reason)``."""
    f = _rebound(op.op)
    if f is not None:
        return f, "lambda"
    path = op.name[len("torch."):] if op.name.startswith("torch.") else op.name
    g = _resolve_path(path)
    if g is not None and callable(g):   # not a dtype named like a method (``cdouble``)
        return g, "function"
    if "." not in path and hasattr(fc.Tensor, path):
        return (lambda x, *a, **k: getattr(x, path)(*a, **k)), "method"
    return None, f"ftrans.compat has no {path!r}"


# ----------------------------------------------------------------------- running and comparing
def _leaves(out):
    """The comparable leaves of an output: tensors, numbers, strings, None."""
    if isinstance(out, (torch.Tensor, fc.Tensor)):
        return [out]
    if isinstance(out, (tuple, list)):
        r = []
        for x in out:
            r.extend(_leaves(x))
        return r
    if isinstance(out, torch.Size) or isinstance(out, fc.Size):
        return [tuple(out)]
    if isinstance(out, (torch.dtype,)) or type(out).__name__ == "dtype":
        return [str(out)]
    return [out]


def _structure(out):
    if isinstance(out, (torch.Tensor, fc.Tensor)):
        return "T"
    if isinstance(out, (tuple, list)) and not isinstance(out, (torch.Size, fc.Size)):
        return tuple(_structure(x) for x in out)
    return "v"


def _np(t):
    if isinstance(t, torch.Tensor):   # force: ZeroTensors (a zero gradient) and conjugate views
        return np.asarray(t.detach().numpy(force=True))
    return np.asarray(t.detach().numpy())


def compare(a, b, tol, what, values=True):
    """Raise Mismatch unless the torch output ``a`` and the compat output ``b`` agree."""
    sa, sb = _structure(a), _structure(b)
    if sa != sb:
        raise Mismatch(f"{what}: structure {sa} (torch) vs {sb} (compat)")
    rtol, atol = tol
    for i, (x, y) in enumerate(zip(_leaves(a), _leaves(b))):
        if isinstance(x, torch.Tensor):
            if str(x.dtype) != str(y.dtype):
                raise Mismatch(f"{what}[{i}]: dtype {x.dtype} (torch) vs {y.dtype} (compat)")
            if tuple(x.shape) != tuple(y.shape):
                raise Mismatch(f"{what}[{i}]: shape {tuple(x.shape)} (torch) vs "
                               f"{tuple(y.shape)} (compat)")
            if values:
                xa, ya = _np(x), _np(y)
                if xa.dtype.kind in "fc":
                    ok = np.allclose(ya, xa, rtol=rtol, atol=atol, equal_nan=True)
                    if not ok and xa.dtype in (np.float32, np.complex64):
                        ok = _normwise(xa, ya, rtol, atol)
                else:
                    ok = np.array_equal(xa, ya)
                if not ok:
                    with np.errstate(all="ignore"):
                        err = np.nanmax(np.abs(ya.astype(complex) - xa.astype(complex))) \
                            if xa.size else 0
                    raise Mismatch(f"{what}[{i}]: values differ (max abs error {err:.3g}, "
                                   f"shape {xa.shape}, dtype {x.dtype})")
        elif isinstance(x, float) and isinstance(y, float):
            if values and not (math.isclose(x, y, rel_tol=rtol, abs_tol=atol)
                               or (math.isnan(x) and math.isnan(y))):
                raise Mismatch(f"{what}[{i}]: {x} (torch) vs {y} (compat)")
        elif values and x != y and not (isinstance(x, float) and isinstance(y, (int, float))
                                        and math.isclose(x, y, rel_tol=rtol, abs_tol=atol)):
            raise Mismatch(f"{what}[{i}]: {x!r} (torch) vs {y!r} (compat)")


def _normwise(x, y, rtol, atol):
    """float32 results of a whole-array computation (a matrix exponential, a scan's
    gradient) are accurate relative to the array's largest entry, not entry by entry:
    ``max|y - x| <= atol + rtol * max|x|`` with the same NaNs and infinities."""
    with np.errstate(all="ignore"):
        fx, fy = np.isfinite(x), np.isfinite(y)
        if not np.array_equal(fx, fy) or not np.array_equal(x[~fx], y[~fy], equal_nan=True):
            return False
        if not fx.any():
            return True
        return bool(np.max(np.abs(y[fx] - x[fx])) <= atol + rtol * np.max(np.abs(x[fx])))


def _quiet():
    stack = contextlib.ExitStack()
    stack.enter_context(warnings.catch_warnings())
    warnings.simplefilter("ignore")
    stack.enter_context(np.errstate(all="ignore"))
    return stack


def _diff_outputs(out):
    """The outputs gradients flow from (torch: tensors with a grad_fn)."""
    return [t for t in _leaves(out) if isinstance(t, (torch.Tensor, fc.Tensor))
            and t.requires_grad and t.dtype.is_floating_point or
            isinstance(t, (torch.Tensor, fc.Tensor)) and t.requires_grad and t.is_complex()]


def _cotangents(outs, rng):
    cts = []
    for t in outs:
        shape = tuple(t.shape)
        v = rng.standard_normal(shape)
        if t.is_complex():
            v = v + 1j * rng.standard_normal(shape)
        cts.append(np.asarray(v, dtype=str(t.dtype).split(".")[-1]))
    return cts


def _grads(T, outs, ins, cts, create_graph=False):
    gs = T.autograd.grad(outs, ins, [T.tensor(c) if T is fc else torch.from_numpy(c.copy())
                                     for c in cts], allow_unused=True,
                         create_graph=create_graph)
    return [g if g is not None else T.zeros_like(x) for g, x in zip(gs, ins)]


def check_sample(op, fn, sample, dtype, rng, deep=False):
    """Compare one sample; returns the list of checks done. Raises Mismatch or Skip."""
    tol = TOL[dtype]
    process = sample.output_process_fn_grad
    cprocess = _rebound(process) or process
    leaves = Leaves()
    args = to_compat((sample.input,) + tuple(sample.args), leaves)
    kwargs = to_compat(dict(sample.kwargs), leaves)
    tleaves = [p[0] for p in leaves]
    cleaves = [p[1] for p in leaves]
    with _quiet():
        try:
            torch.manual_seed(1)
            tout = op(sample.input, *sample.args, **sample.kwargs)
            torch.manual_seed(2)
            tout2 = op(sample.input, *sample.args, **sample.kwargs)
        except Exception as e:  # noqa: BLE001 - torch refusing this sample: not compared
            raise Skip(f"torch raises {type(e).__name__}") from None
        try:
            cout = fn(*args, **kwargs)
        except Skip:
            raise
        except AttributeError as e:
            if _MISSING.search(str(e)):
                raise Missing(str(e)) from None
            raise Mismatch(f"compat raises AttributeError: {str(e)[:200]}") from None
        except Exception as e:  # noqa: BLE001
            raise Mismatch(f"compat raises {type(e).__name__}: {str(e)[:200]}") from None
        tp, cp = process(tout), cprocess(cout)
    random = op.name in _RANDOM or _differs(tp, process(tout2)) or (
        _seeded(op) and _differs(tp, cp, TOL[dtype]))
    compare(tp, cp, tol, "value", values=not random)
    done = ["value"]
    if random or not op.supports_autograd or not tleaves:
        return done
    touts = _diff_outputs(tp)
    if not touts:
        return done
    couts = _diff_outputs(cp)
    if len(couts) != len(touts):
        raise Mismatch(f"grad: {len(touts)} differentiable outputs (torch) vs {len(couts)} "
                       "(compat)")
    cts = _cotangents(touts, rng)
    with _quiet():
        tg = _grads(torch, touts, tleaves, cts, create_graph=deep and op.supports_gradgrad)
        try:
            cg = _grads(fc, couts, cleaves, cts, create_graph=deep and op.supports_gradgrad)
        except Exception as e:  # noqa: BLE001
            raise Mismatch(f"grad: compat raises {type(e).__name__}: {str(e)[:200]}") from None
    compare(tuple(tg), tuple(cg), tol, "grad")
    done.append("grad")
    if not deep:
        return done
    if op.supports_gradgrad:
        done += _check_gradgrad(tg, cg, tleaves, cleaves, rng, tol)
    if op.supports_forward_ad:
        done += _check_forward(op, fn, sample, args, kwargs, leaves, process, cprocess, rng,
                               tol)
    done += _check_func(fn, args, kwargs, leaves, cprocess, cts, tg, tol)
    return done


def _check_gradgrad(tg, cg, tleaves, cleaves, rng, tol):
    """Second derivatives: the gradient of <first gradients, v> for a random ``v``. A first
    gradient that does not require grad in compat contributes zero (a constant gradient,
    such as a bias's, has none); a wrong constant shows in the values."""
    idx = [i for i, a in enumerate(tg) if a.requires_grad]
    if not idx:
        return []
    cts = _cotangents([tg[i] for i in idx], rng)
    cidx = [j for j, i in enumerate(idx) if cg[i].requires_grad]
    with _quiet():
        try:
            t2 = _grads(torch, [tg[i] for i in idx], tleaves, cts)
        except RuntimeError:   # torch has no second derivative here (ctc_loss): not compared
            return []
        try:
            c2 = (_grads(fc, [cg[idx[j]] for j in cidx], cleaves, [cts[j] for j in cidx])
                  if cidx else [fc.zeros_like(x) for x in cleaves])
        except Exception as e:  # noqa: BLE001
            raise Mismatch(f"gradgrad: compat raises {type(e).__name__}: "
                           f"{str(e)[:200]}") from None
    compare(tuple(t2), tuple(c2), tol, "gradgrad")
    return ["gradgrad"]


def _check_forward(op, fn, sample, args, kwargs, leaves, process, cprocess, rng, tol):
    """Forward mode: the tangent of the outputs for random input tangents."""
    import torch.autograd.forward_ad as tfa
    cfa = fc.autograd.forward_ad
    tangents = _cotangents([t for t, _ in leaves], rng)
    tmap = {id(t): torch.from_numpy(v.copy()) for (t, _), v in zip(leaves, tangents)}
    cmap = {id(c): fc.tensor(v) for (_, c), v in zip(leaves, tangents)}

    def dualize(v, fa, tmap):
        if id(v) in tmap:
            return fa.make_dual(v.detach(), tmap[id(v)])
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return type(v)(dualize(x, fa, tmap) for x in v)
        if isinstance(v, dict):
            return {k: dualize(x, fa, tmap) for k, x in v.items()}
        return v

    def tangents_of(out, fa):
        r = []
        for t in _leaves(out):
            if isinstance(t, (torch.Tensor, fc.Tensor)) and (t.dtype.is_floating_point
                                                             or t.is_complex()):
                tan = fa.unpack_dual(t).tangent
                r.append(tan if tan is not None else (torch if fa is tfa else fc).zeros_like(t))
        return tuple(r)

    targs = (sample.input,) + tuple(sample.args)
    with _quiet():
        try:
            with tfa.dual_level():
                tt = tangents_of(process(op(*dualize(targs, tfa, tmap),
                                            **dualize(dict(sample.kwargs), tfa, tmap))), tfa)
        except Exception:  # noqa: BLE001 - torch has no forward rule for this sample
            return []
        try:
            with cfa.dual_level():
                ct = tangents_of(cprocess(fn(*dualize(args, cfa, cmap),
                                             **dualize(kwargs, cfa, cmap))), cfa)
        except Exception as e:  # noqa: BLE001
            raise Mismatch(f"forward AD: compat raises {type(e).__name__}: "
                           f"{str(e)[:200]}") from None
    compare(tt, ct, tol, "forward AD")
    return ["forward AD"]


def _check_func(fn, args, kwargs, leaves, cprocess, cts, tg, tol):
    """compat.func.vjp (ftrans's transforms, traced) against torch's gradients."""
    ids = [id(c) for _, c in leaves]

    def sub(v, vals):
        if id(v) in ids:
            return vals[ids.index(id(v))]
        if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
            return type(v)(sub(x, vals) for x in v)
        if isinstance(v, dict):
            return {k: sub(x, vals) for k, x in v.items()}
        return v

    def f(*vals):
        out = cprocess(fn(*sub(args, vals), **sub(kwargs, vals)))
        return tuple(t for t in _leaves(out) if isinstance(t, fc.Tensor)
                     and (t.dtype.is_floating_point or t.is_complex()))

    prim = [c.detach() for _, c in leaves]
    with _quiet():
        try:
            outs, vjp_fn = fc.func.vjp(f, *prim)
            if len(outs) != len(cts):
                return []
            g = vjp_fn(tuple(fc.tensor(c) for c in cts))
        except Exception as e:  # noqa: BLE001
            raise Mismatch(f"compat.func.vjp raises {type(e).__name__}: "
                           f"{str(e)[:200]}") from None
    compare(tuple(tg), tuple(x if x is not None else fc.zeros_like(p)
                             for x, p in zip(g, prim)), tol, "func.vjp")
    return ["func.vjp"]


_RANDOM = {"bernoulli", "multinomial", "normal", "uniform", "cauchy", "exponential",
           "geometric", "log_normal", "empty", "empty_like", "new_empty", "empty_strided",
           "new_empty_strided", "empty_permuted", "randint_like", "rand_like", "randn_like",
           "nn.functional.dropout", "nn.functional.dropout2d", "nn.functional.dropout3d",
           "nn.functional.alpha_dropout", "nn.functional.feature_alpha_dropout",
           "nn.functional.rrelu", "nn.functional.fractional_max_pool2d",
           "nn.functional.fractional_max_pool3d", "svd_lowrank", "pca_lowrank", "randint",
           "randn", "rand", "randperm"}


def _seeded(op):
    """op_db wraps possibly random operators in ``wrapper_set_seed`` (a fixed torch seed):
    their values depend on torch's generator, which compat does not reproduce, so a sample
    whose values differ is compared by structure, dtype and shape (dropout with ``p > 0``);
    the deterministic samples of such an operator are compared in full."""
    code = getattr(op.op, "__code__", None)
    return code is not None and "wrapper_set_seed" in code.co_names


def _differs(a, b, tol=(0.0, 0.0)):
    """True when two torch runs of one sample under different seeds disagree (a random
    operator, or dropout with ``p > 0``): compat's values are then not comparable."""
    try:
        compare(a, b, tol, "seed")
    except Mismatch:
        return True
    return False


def check_errors(op, fn):
    """Every error input raises in compat with torch's exception type."""
    try:
        eis = list(op.error_inputs("cpu"))
    except Exception:  # noqa: BLE001 - no error_inputs generator for this op
        return 0
    n = 0
    for ei in eis:
        s = ei.sample_input
        try:
            leaves = Leaves(views=True)
            args = to_compat((s.input,) + tuple(s.args), leaves)
            kwargs = to_compat(dict(s.kwargs), leaves)
        except Skip:
            continue
        etype = ei.error_type
        base = next((c for c in etype.__mro__ if c.__module__ == "builtins"), Exception)
        with _quiet():
            try:   # torch's behaviour is the specification: an error input it accepts is skipped
                op(s.input, *s.args, **s.kwargs)
                continue
            except Exception:  # noqa: BLE001
                pass
            try:
                fn(*args, **kwargs)
            except Exception as e:  # noqa: BLE001
                if not isinstance(e, base):
                    raise Mismatch(f"error input: compat raises {type(e).__name__} "
                                   f"({str(e)[:120]}), torch {etype.__name__}") from None
            else:
                raise Mismatch(f"error input: compat returns, torch raises {etype.__name__}"
                               f" matching {ei.error_regex!r}")
        n += 1
    return n


def _dtypes(op):
    have = op.supported_dtypes("cpu")
    r = [d for d in ("float64", "float32", "complex128") if getattr(torch, d) in have]
    if not r:   # integer/bool-only operators
        for d in (torch.int64, torch.bool, torch.int32, torch.uint8):
            if d in have:
                r.append(str(d).split(".")[-1])
                break
    return r


class _Hermitian:
    """An OpInfo whose call is ``op(input + input.mH, ...)`` (its gradcheck_wrapper: the
    operators that read one triangle of a Hermitian input are compared on Hermitian
    inputs and tangents, as torch's own gradient tests do)."""

    def __init__(self, op):
        self._op = op

    def __getattr__(self, name):
        return getattr(self._op, name)

    def __call__(self, *args, **kwargs):
        return self._op.gradcheck_wrapper(self._op, *args, **kwargs)


def _hermitian(op, fn):
    def f(*args, **kwargs):
        return op.gradcheck_wrapper(fn, *args, **kwargs)
    return f


def check_op(op, all_samples=False, verbose=False):
    """``(status, detail)`` for one op_db entry."""
    if excluded(op):
        return "excluded", "outside the contract (masked/sparse/jiterator/private aten)"
    dts = _dtypes(op)
    if not dts:
        return "torch-refuses", "torch's CPU build supports no dtype for it"
    fn, how = compat_callable(op)
    if fn is None:
        return "missing", how
    if getattr(op.gradcheck_wrapper, "__name__", "") == "gradcheck_wrapper_hermitian_input":
        op, fn = _Hermitian(op), _hermitian(op, fn)   # as torch's test_ops: f(A + A^H)
    rng = np.random.default_rng(0)
    nsamples = 0
    failures = []
    checks = collections.Counter()
    for dt in dts:
        tdt = getattr(torch, dt)
        cap = None if all_samples else SAMPLES.get(dt, 2)
        rg = op.supports_autograd and (tdt.is_floating_point or tdt.is_complex)
        try:
            torch.manual_seed(0)
            samples = op.sample_inputs("cpu", tdt, requires_grad=rg)
        except Exception as e:  # noqa: BLE001
            failures.append(f"{dt}: sample_inputs fails in torch ({type(e).__name__})")
            continue
        k = 0
        for sample in samples:
            if cap is not None and k >= cap:
                break
            try:
                for c in check_sample(op, fn, sample, dt if dt in TOL else "float64", rng,
                                      deep=(dt == "float64" and k == 0)):
                    checks[c] += 1
                k += 1
            except Skip:
                continue
            except Missing as e:
                return "missing", str(e)
            except Mismatch as e:
                k += 1
                failures.append(f"{dt}: {e}")
                if not verbose:
                    break
            except Exception as e:  # noqa: BLE001 - compat broke the comparison itself
                k += 1
                failures.append(f"{dt}: comparing raised {type(e).__name__}: {str(e)[:160]}")
                if not verbose:
                    break
        nsamples += k
        if failures and not verbose:
            break
    if not failures:
        try:
            checks["error inputs"] += check_errors(op, fn)
        except Mismatch as e:
            failures.append(str(e))
    if nsamples == 0 and not failures:
        return "torch-refuses", "torch raises on every sample on this CPU build"
    if failures:
        return "fail", "; ".join(failures) if verbose else failures[0]
    return "pass", ", ".join(f"{k} {v}" for k, v in checks.items())


def summarize(results):
    """Counts per namespace: ``{ns: Counter(status)}``."""
    table = collections.defaultdict(collections.Counter)
    for name, (ns, status, _) in results.items():
        table[ns][status] += 1
    return table


def format_summary(table):
    cols = ("pass", "fail", "missing", "torch-refuses", "excluded")
    lines = [f"{'namespace':<15}" + "".join(f"{c:>14}" for c in cols) + f"{'total':>8}"]
    tot = collections.Counter()
    for ns in sorted(table):
        c = table[ns]
        tot.update(c)
        lines.append(f"{ns:<15}" + "".join(f"{c[k]:>14}" for k in cols)
                     + f"{sum(c.values()):>8}")
    lines.append(f"{'all':<15}" + "".join(f"{tot[k]:>14}" for k in cols)
                 + f"{sum(tot.values()):>8}")
    inscope = sum(tot[k] for k in ("pass", "fail", "missing"))
    lines.append(f"in scope: {inscope}; passing {tot['pass']} "
                 f"({100.0 * tot['pass'] / max(inscope, 1):.1f}%)")
    return "\n".join(lines)


def write_known(path, results):
    """The list of op_db entries expected not to pass yet, with their reasons."""
    lines = ['"""op_db entries that do not pass yet (written by ``python tests/compat/opdb.py',
             '--write-known tests/compat/opdb_known.py``): name -> status and first reason.',
             'tests/compat/test_opdb.py expects exactly these to fail (strict: one that starts',
             'passing must leave this list)."""', "", "KNOWN = {"]
    for name in sorted(results):
        ns, status, detail = results[name]
        if status in ("fail", "missing"):
            lines.append(f"    {name!r}: {(status + ': ' + detail)[:150]!r},")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv=None):
    import argparse
    import time
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", help="comma-separated op_db names (name or name/variant)")
    ap.add_argument("--all-samples", action="store_true")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--status", help="print only operators with these statuses (comma list)")
    ap.add_argument("--write-known", metavar="PATH",
                    help="write the entries that do not pass (tests/compat/opdb_known.py)")
    a = ap.parse_args(argv)
    if torch is None:
        print("PyTorch is not installed: nothing to compare against")
        return 0
    table = ops()
    if a.ops:
        want = a.ops.split(",")
        sel = {k: v for k, v in table.items() if k in want or v.name in want}
    else:
        sel = table
    show = set(a.status.split(",")) if a.status else None
    results = {}
    t0 = time.perf_counter()
    for name, op in sel.items():
        status, detail = check_op(op, all_samples=a.all_samples, verbose=a.verbose)
        results[name] = (namespace(op), status, detail)
        if (show is None and status != "excluded") or (show and status in show):
            if a.verbose or status != "pass" or show:
                print(f"{name:<45} {status:<14} {detail}")
    print(format_summary(summarize(results)))
    if a.write_known:
        write_known(a.write_known, results)
    print(f"checked {len(sel)} op_db entries in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
