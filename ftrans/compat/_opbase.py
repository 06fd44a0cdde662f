"""compat operations, part 1: recording a graph node, operands and PyTorch's type promotion,
and the builders of elementwise operations (unary, binary, composite).

The torch functions themselves are gathered in :mod:`ftrans.compat._ops`.
"""
from __future__ import annotations

import builtins
import inspect
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from . import _dtype as D
from ._tensor import (Tensor, _make, _make_plain, _edge, _requires_grad)
from .autograd.grad_mode import _tls
from .autograd import graph as G
from .autograd import _events
from .autograd.graph import NO_EDGE, node_class, new_node, meta as _meta
from .autograd._composite import run as _run_composite, run_with_residuals, Residuals, Static
from ..primitives.convert import convert_element_type_p
from ..core.trace import Tracer as _Tracer
from .types import TensorOrNumber

_pyabs, _pymin, _pymax, _pysum, _pyround = builtins.abs, builtins.min, builtins.max, \
    builtins.sum, builtins.round
_EMPTY: dict[str, Any] = {}
_T1 = (True,)
_fw_on = False   # a forward AD level is active (set by autograd.forward_ad)
_fwad: Any = None  # the autograd.forward_ad module: it is above this one and sets this name


# =============================================================================== docstrings
#: numpydoc Parameters entries shared by the generated functions' docstrings
P_INPUT = "input : Tensor\n    The input tensor."
P_OUT = ("out : Tensor, optional\n    Tensor the result is written into (converted to its "
         "dtype, resized to the result's shape); it is also returned.  Not differentiable.")


def docstring(summary: str, params: Sequence[str], returns: str, notes: str = "") -> str:
    """A numpydoc docstring: the one-line ``summary``, the description ``notes`` (if any),
    the Parameters entries ``params`` (``"name : type\\n    description"``) and the
    Returns entry ``returns``."""
    parts = [summary]
    if notes:
        parts.append(notes)
    if params:
        parts.append("Parameters\n----------\n" + "\n".join(params))
    parts.append("Returns\n-------\n" + returns)
    return "\n\n".join(parts)


def _is_header(lines: list[str], k: int) -> bool:
    return k + 1 < len(lines) and bool(lines[k].strip()) and \
        set(lines[k + 1].strip()) == {"-"} and len(lines[k + 1].strip()) >= 3


def add_param_doc(doc: str | None, entry: str) -> str:
    """``doc`` (a numpydoc docstring) with the Parameters entry ``entry`` appended to its
    Parameters section (the section is added when missing)."""
    lines = inspect.cleandoc(doc or "").splitlines()
    heads = [k for k in range(len(lines)) if _is_header(lines, k)]
    par = next((k for k in heads if lines[k].strip() == "Parameters"), None)
    if par is None:
        new = ["Parameters", "----------"] + entry.splitlines() + [""]
        at = heads[0] if heads else len(lines)
        if not heads:
            new = [""] + new[:-1]
        return "\n".join(lines[:at] + new + lines[at:])
    nxt = next((k for k in heads if k > par), len(lines))
    at = nxt
    while at > par + 2 and not lines[at - 1].strip():
        at -= 1
    return "\n".join(lines[:at] + entry.splitlines() + lines[at:])


def replace_summary(doc: str | None, summary: str) -> str:
    """``doc`` with its one-line summary replaced by ``summary``."""
    lines = inspect.cleandoc(doc or "").splitlines()
    return "\n".join([summary] + lines[1:])


# =============================================================================== recording
def _record(cls: Any, prim: Any, params: dict[str, Any], args: Sequence[Any],
            datas: Sequence[Any], out: Any, save: Any, casts: Any = None,
            _fw: bool = True) -> Tensor:
    """The output tensor of an operation, with a node when recording applies.

    ``args``: the operands as given (Tensors or raw values: Python scalars, index arrays);
    ``datas``: the values handed to the primitive; ``out``: its result; ``save``:
    ``(mask, save_out)`` or a function of the per-operand ``needs`` returning one --
    bit ``i`` of ``mask`` saves operand ``i``.  Inside a forward AD level the output also
    gets a tangent (:mod:`.autograd.forward_ad`, whose own call passes ``_fw=False``).
    """
    if _fw_on and _fw:
        return _fwad._record(cls, prim, params, args, datas, out, save, casts)
    if not _tls.grad:
        return _make_plain(out)
    nxt = []
    needs = []
    anyrg = False
    for a in args:
        if isinstance(a, Tensor):
            e = _edge(a)
            n = e[0] is not None
            anyrg = anyrg or n
            nxt.append(e)
            needs.append(n)
        else:
            nxt.append(NO_EDGE)
            needs.append(False)
    if not anyrg:
        return _make(out)
    mask, so = save(needs) if callable(save) else save
    saved = []
    for i, a in enumerate(args):
        d = datas[i]
        if isinstance(a, Tensor):
            saved.append(G.save(a, d) if (mask >> i) & 1 else _meta(d))
        else:
            saved.append(d)
    t = _make(out)
    node = new_node(cls, prim, params, tuple(nxt), saved, mask, None, tuple(needs))
    if casts is not None:
        node._casts = casts
    t._grad_fn = node
    if so:  # after t._grad_fn: a pack hook gets the output itself
        node._outsv = G.save_out(t)
    return t


def _save_all(needs: Sequence[bool]) -> tuple[int, bool]:
    return (-1, True)


SAVE_NONE = (0, False)
SAVE_X = (1, False)
SAVE_OUT = (0, True)
SAVE_X_OUT = (1, True)


def _save_cross(needs: Sequence[bool]) -> tuple[int, bool]:
    """mul: each operand's formula reads the other operand."""
    return ((2 if needs[0] else 0) | (1 if needs[1] else 0), False)


def _save_div(needs: Sequence[bool]) -> tuple[int, bool]:
    return (2, needs[1])


def _save_pow(needs: Sequence[bool]) -> tuple[int, bool]:
    return (3, needs[1])


def _save_both(needs: Sequence[bool]) -> tuple[int, bool]:
    return (3, False)


_new_obj = object.__new__
_next_seq = G._seq.__next__
_save_in = G.save
_save_out = G.save_out


# =============================================================================== operands
def _k(prim: Any, d: Any) -> Callable[..., Any]:
    """``prim``'s kernel for a concrete NumPy array ``d``, its ``bind`` otherwise (a Tracer
    of an ftrans transform under ``compat.func``; CuPy arrays also take ``bind``, which
    goes straight to the kernel outside transforms)."""
    return prim.impl if type(d) is np.ndarray else prim.bind


def _kk(prim: Any, *datas: Any) -> Callable[..., Any]:
    """:func:`_k` for several operands: ``bind`` when any of them is a Tracer."""
    return prim.bind if _any_traced(*datas) else prim.impl


def _any_traced(*datas: Any) -> bool:
    """True when a value is a Tracer of an ftrans transform (``compat.func``'s traced
    path): the operation must then compute with primitives' ``bind``, not NumPy."""
    for d in datas:
        if isinstance(d, _Tracer):
            return True
    return False


def _tensorize(v: Any) -> Tensor:
    """A Tensor for array-likes that are not Python scalars (NumPy arrays, lists)."""
    if isinstance(v, Tensor):
        return v
    return _make(np.asarray(v))


def _scalar(v: Any) -> Any:
    t = type(v)
    if t is float or t is int or t is bool or t is complex:
        return v
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (int, float, complex)):
        return v
    return None


def _default_float() -> np.dtype[Any]:
    return D.get_default_dtype().np


def _promote_datas(items: Sequence[Any]) -> np.dtype[Any]:
    """PyTorch's result dtype for ``items`` (Tensors and Python scalars)."""
    dim: list[np.dtype[Any]] = []
    zero: list[np.dtype[Any]] = []
    sc: list[np.dtype[Any]] = []
    for v in items:
        if isinstance(v, Tensor):
            d = v._data
            (dim if d.ndim else zero).append(d.dtype)
        else:
            sc.append(D.scalar_np_dtype(v))
    return D.result_type(tuple(dim), tuple(zero), tuple(sc))


def _operands(a: Any, b: Any) -> tuple[Any, Any, Any] | None:
    """``(a_data, b_data, casts)`` for a binary operation: arrays converted to PyTorch's
    result dtype (Python scalars stay weak), ``casts`` the original dtypes of converted
    operands (or None).  None for an operand that is neither a tensor, a number nor a
    NumPy array (the operator then returns NotImplemented)."""
    if isinstance(a, Tensor):
        ad = a._data
        if isinstance(b, Tensor):
            bd = b._data
            if ad.dtype == bd.dtype:
                return ad, bd, None
        else:
            bd = _scalar(b)
            if bd is None:
                if not isinstance(b, np.ndarray):
                    return None
                return _operands(a, _tensorize(b))
            k = ad.dtype.kind
            tb = type(bd)
            if k == "f" or k == "c":
                return ad, bd, None
            if tb is int and k in "iu" or tb is bool or (tb is int and k == "b"):
                return ad, bd, None
    else:
        ad = _scalar(a)
        if ad is None:
            if not isinstance(a, np.ndarray):
                return None
            return _operands(_tensorize(a), b)
        if not isinstance(b, Tensor):
            b = _tensorize(b)
        bd = b._data
        k = bd.dtype.kind
        ta = type(ad)
        if k == "f" or k == "c":
            return ad, bd, None
        if ta is int and k in "iu" or ta is bool or (ta is int and k == "b"):
            return ad, bd, None
    r = _promote_datas((a, b))
    return _cast_operand(a, ad, r), _cast_operand(b, bd, r), (
        _orig_dtype(a, r), _orig_dtype(b, r))


def _bad_operand(prefix: str, a: Any, b: Any) -> TypeError:
    """The TypeError for an operand that is neither a tensor nor a number."""
    bad = b if isinstance(a, Tensor) else a
    return TypeError(f"{prefix}expected a Tensor or a number, got {type(bad).__name__}")


def _operands_or_raise(a: Any, b: Any) -> tuple[Any, Any, Any]:
    """:func:`_operands`, a TypeError for an operand that is neither a tensor nor a number."""
    r = _operands(a, b)
    if r is None:
        raise _bad_operand("unsupported operand type: ", a, b)
    return r


def _cast_operand(v: Any, d: Any, r: np.dtype[Any]) -> Any:
    if isinstance(v, Tensor) and d.dtype != r:
        return d.astype(r)
    if not isinstance(v, Tensor) and r.kind in "fc" and type(d) is int and r.kind == "f":
        return float(d)
    return d


def _orig_dtype(v: Any, r: np.dtype[Any]) -> np.dtype[Any] | None:
    if isinstance(v, Tensor) and v._data.dtype != r and v._data.dtype.kind in "fc":
        return v._data.dtype
    return None


def _as_float(d: Any) -> Any:
    """Integer/bool data converted to the default float dtype (for float-only functions)."""
    if d.dtype.kind in "fc":
        return d
    return d.astype(_default_float())


# ------------------------------------------------------------------ operations without complex
def _has_complex(*vals: Any) -> bool:
    """True if an operand is a complex tensor, array or number."""
    for v in vals:
        if isinstance(v, Tensor):
            if v._data.dtype.kind == "c":
                return True
        elif isinstance(v, (complex, np.complexfloating)) or (
                isinstance(v, np.ndarray) and v.dtype.kind == "c"):
            return True
    return False


def _refuse_complex(*vals: Any, kernel: str | None = None, msg: str | None = None,
                    exc: type[Exception] = NotImplementedError) -> None:
    """Raise as PyTorch 2.13 does when an operation has no complex implementation.

    PyTorch refuses complex operands of orderings (``lt``, ``maximum``, ``clamp``, ``max``
    ...), roundings (``floor`` ...), ``atan2``, ``remainder``, ``softmax`` ... -- mostly
    with ``NotImplementedError('"<kernel>" not implemented for 'ComplexFloat'')``
    (``kernel``), some with their own message (``msg``) or exception type (``exc``).
    Nothing happens when no operand in ``vals`` is complex.
    """
    if not _has_complex(*vals):
        return
    if msg is None:
        items = [_tensorize(v) if isinstance(v, np.ndarray) else v for v in vals
                 if isinstance(v, (Tensor, np.ndarray)) or _scalar(v) is not None]
        msg = f'"{kernel}" not implemented for \'{_tname(_promote_datas(items))}\''
    raise exc(msg)


def _real_only(fn: Callable[..., Any], kernel: str | None = None, msg: str | None = None,
               exc: type[Exception] = NotImplementedError) -> Callable[..., Any]:
    """``fn`` refusing complex positional operands (see :func:`_refuse_complex`); it shows
    ``fn``'s signature and docstring (``__wrapped__``)."""
    def f(*args: Any, **kwargs: Any) -> Any:
        if _has_complex(*args):
            _refuse_complex(*args, kernel=kernel, msg=msg, exc=exc)
        return fn(*args, **kwargs)
    f.__name__ = fn.__name__
    f.__doc__ = fn.__doc__
    f.__wrapped__ = fn  # type: ignore[attr-defined]  # inspect.signature shows fn's
    return f


def _tname(npdt: Any) -> str:
    return D.from_np(npdt)._tname[:-6]


def _ctype(npdt: Any) -> str:
    return {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long",
            "int32": "int", "complex64": "c10::complex<float>",
            "complex128": "c10::complex<double>"}.get(str(npdt), str(npdt))


_ToCopyBackward0 = node_class("ToCopyBackward0", ("self",))

def _convert(x: Tensor, npdt: np.dtype[Any]) -> Tensor:
    d = x._data
    if d.dtype == npdt:
        return x
    if d.dtype.kind == "c" and npdt.kind != "c":
        import warnings
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=3)
    params = {"new_dtype": npdt}
    out = _k(convert_element_type_p, d)(d, **params)
    if npdt.kind not in "fc":
        return _make_plain(out)
    return _record(_ToCopyBackward0, convert_element_type_p, params, [x], [d], out, SAVE_NONE)


def unary_doc(torch_name: str, summary: str, dtype: str = "float", notes: str = "") -> str:
    """The docstring of the elementwise function ``torch.<torch_name>`` (``summary``: what
    it computes, one sentence); ``dtype``: the result's dtype, ``"float"`` (integer inputs
    promoted to the default float dtype), ``"same"`` (the input's) or ``"bool"``."""
    ret = {"float": "of ``input``'s floating dtype (integer and bool inputs give the "
                    "default float dtype)",
           "same": "of ``input``'s dtype", "bool": "of dtype bool"}[dtype]
    s = summary[0].lower() + summary[1:] if summary[:2] != summary[:2].upper() else summary
    return docstring(f"Elementwise ``torch.{torch_name}``: {s}", [P_INPUT],
                     f"Tensor\n    Same shape as ``input``, {ret}.", notes)


def _unary(prim: Any, name: str, save: str | None, float_only: bool = True,
           doc: str | None = None) -> Callable[[Tensor], Tensor]:
    """A unary elementwise operation recorded as one primitive node saving its input
    ("x"), its result ("out") or both ("x_out"); ``doc``: its docstring (a generic one
    naming the primitive by default)."""
    cls = node_class(name, ("self",))
    impl, bind = prim.impl, prim.bind
    mask = 1 if save in ("x", "x_out") else 0
    so = save in ("out", "x_out")

    def op(input: Tensor) -> Tensor:  # noqa: A002
        x = input
        d = x._data
        if float_only and d.dtype.kind not in "fc":
            d = d.astype(_default_float())
        out = impl(d) if type(d) is np.ndarray else bind(d)   # bind: a Tracer (compat.func)
        if _fw_on:   # forward AD: the generic path computes the tangent
            return _record(cls, prim, _EMPTY, [x], [d], out, (mask, so))
        if _tls.grad and (x._grad_fn is not None or x._rg or (x._x is not None
                                                               and _requires_grad(x))):
            t = _make(out)
            n = _new_obj(cls)
            n._next = (_edge(x),)
            n._seq = _next_seq()
            n._hk = None
            n._prim = prim
            n._params = _EMPTY
            n._saved = [_save_in(x, d) if mask else _meta(d)]
            n._smask = mask
            n._outsv = None
            n._needs = _T1
            n._released = False
            n._casts = None
            n._tsv = mask
            t._grad_fn = n
            if so:  # after t._grad_fn: a pack hook gets the output itself
                n._outsv = _save_out(t)
            if _events.node_created:
                _events.created(n)
            return t
        return _make_plain(out)
    op.__name__ = prim.name
    op.__doc__ = doc or unary_doc(prim.name, f"the ``{prim.name}`` primitive.",
                                  "float" if float_only else "same")
    return op


def _compose(cls: Any, fn: Callable[..., Any], args: Sequence[Any], datas: Sequence[Any],
             params: dict[str, Any] = _EMPTY, mask: Any = -1, casts: Any = None,
             out: Any = None) -> Tensor:
    """The result of the composition ``fn(*datas, **params)`` (ftrans operations: NumPy
    arrays run eagerly, Tracers under ``compat.func`` are traced), recorded as one
    composite node of class ``cls`` whose backward is ``ftrans.vjp(fn)``
    (:mod:`.autograd._composite`).  ``mask``: bit ``i`` saves tensor operand ``i`` (the
    operands the derivative reads; the others are kept as shape and dtype only).  ``out``:
    the value when NumPy computes it more exactly than the composition (``inf`` parts of
    ``torch.complex``); the derivative is still the composition's."""
    if out is None:
        try:
            out = _run_composite(fn, params, datas)
        except ValueError as e:
            _reraise_broadcast(e, datas)
    return _record(cls, fn, params, args, datas, out, mask if callable(mask) else (mask, False),
                   casts)


def _custom(cls: Any, f: Any, args: Sequence[Any], datas: Sequence[Any], casts: Any = None,
            post: Any = None, params: dict[str, Any] = _EMPTY) -> tuple[Tensor, Any]:
    """The output of the ``ftrans.custom_vjp`` function ``f(*datas)`` (``ftrans.nn``'s fused
    kernels), recorded as one node of the residual class ``cls``
    (:func:`.autograd._composite.residual_class`): when a node is recorded, the forward is
    ``f``'s ``fwd`` and the node keeps its residuals for ``bwd``; otherwise ``f``'s plain
    function runs.  ``post``: the node's output is result ``post`` of several, or
    (``"sum"``) the sum of the result; ``params``: the node's ``_saved_<name>``
    attributes (not passed to ``f``).  Returns ``(tensor, result)``."""
    if _fw_on or (_tls.grad and _any_requires_grad(args)):
        full, out, res = run_with_residuals(f, datas, post)
        kept = [Static(d) if type(d) is tuple else d for d in datas]
        return _record(cls, f, params, list(args) + [None], kept + [res], out,
                       (-1, False), casts), full
    full = f.fun(*datas)   # (traced: the composition; no custom rule to carry)
    return _make_plain(Residuals(None, post).apply(full)), full


def _any_requires_grad(args: Sequence[Any]) -> bool:
    for a in args:
        if isinstance(a, Tensor) and _edge(a)[0] is not None:
            return True
    return False


def _broadcast_error(*datas: Any) -> RuntimeError:
    """PyTorch's RuntimeError for operands whose shapes do not broadcast: the shapes are
    combined left to right, "tensor a" is the broadcast shape so far, "tensor b" the next
    operand.  Non-array operands (Python scalars) are skipped."""
    shapes = [tuple(getattr(d, "shape", ())) for d in datas]
    acc: tuple[int, ...] = ()
    for sb in shapes:
        n = _pymax(len(acc), len(sb))
        sa2 = (1,) * (n - len(acc)) + acc
        sb2 = (1,) * (n - len(sb)) + sb
        for i in range(n - 1, -1, -1):
            if sa2[i] != sb2[i] and sa2[i] != 1 and sb2[i] != 1:
                return RuntimeError(f"The size of tensor a ({sa2[i]}) must match the size of "
                                    f"tensor b ({sb2[i]}) at non-singleton dimension {i}")
        acc = tuple(b if a == 1 else a for a, b in zip(sa2, sb2))
    return RuntimeError(f"operands with shapes {[list(s) for s in shapes]} cannot be "
                        "broadcast")


def _reraise_broadcast(e: Exception, datas: Sequence[Any]) -> NoReturn:
    """Raise PyTorch's broadcasting RuntimeError for the ValueError ``e`` of NumPy when the
    shapes of ``datas`` do not broadcast; re-raise ``e`` otherwise."""
    try:
        np.broadcast_shapes(*[tuple(getattr(d, "shape", ())) for d in datas])
    except ValueError:
        raise _broadcast_error(*datas) from None
    raise e


def _integral(v: Any) -> bool:
    """True for an integer/bool tensor, array or Python integer (no promotion to float)."""
    d = v._data if isinstance(v, Tensor) else v
    dt = getattr(d, "dtype", None)
    if dt is not None:
        return dt.kind in "iub"
    return isinstance(v, (int, np.integer))   # (bool is an int)


def _check_int_division(a: Any, b: Any) -> None:
    """PyTorch's ``RuntimeError: ZeroDivisionError`` for an integer division or remainder
    whose divisor ``b`` has a zero (tensors or their data; concrete values only: a traced
    divisor is unknown).  A floating operand returns at once."""
    if not (_integral(a) and _integral(b)):
        return
    bd = b._data if isinstance(b, Tensor) else b
    if not _any_traced(bd) and np.any(np.asarray(bd) == 0):
        raise RuntimeError("ZeroDivisionError")


def _binary(prim: Any, name: str, names: tuple[str, ...], save: Any, rname: str | None = None,
            edge_idx: tuple[int, ...] | None = None) -> Callable[[Any, Any], Any]:
    """A binary elementwise operation recorded as one primitive node.  ``save``: (mask,
    save_out) or a function of (needs_a, needs_b) returning one (tabulated here);
    ``edge_idx``: the operands shown in ``next_functions`` (all by default)."""
    cls = node_class(name, names, edge_idx=edge_idx)
    rcls = node_class(rname, names) if rname else cls
    impl, bind = prim.impl, prim.bind
    table = {}
    for k in ((True, True), (True, False), (False, True)):
        mask_so = save(k) if callable(save) else save
        table[k[0] * 2 + k[1]] = (k,) + tuple(mask_so)

    def op(a: Any, b: Any) -> Tensor:
        """The operator form: NotImplemented for an operand it does not know."""
        r = _operands(a, b)
        if r is None:
            return NotImplemented
        ad, bd, casts = r
        try:
            out = (bind if isinstance(ad, _Tracer) or isinstance(bd, _Tracer) else impl)(ad, bd)
        except ValueError:
            raise _broadcast_error(ad, bd) from None
        if _fw_on:   # forward AD: the generic path computes the tangent
            return _record(cls if isinstance(a, Tensor) else rcls, prim, _EMPTY, [a, b],
                           [ad, bd], out, save, casts)
        if _tls.grad:
            ta = isinstance(a, Tensor)
            tb = isinstance(b, Tensor)
            ea = _edge(a) if ta else NO_EDGE
            eb = _edge(b) if tb else NO_EDGE
            n0 = ea[0] is not None
            n1 = eb[0] is not None
            if n0 or n1:
                needs, mask, so = table[n0 * 2 + n1]
                if ta:
                    sa = _save_in(a, ad) if mask & 1 else _meta(ad)
                else:
                    sa = ad
                if tb:
                    sb = _save_in(b, bd) if mask & 2 else _meta(bd)
                else:
                    sb = bd
                t = _make(out)
                n = _new_obj(cls if ta else rcls)
                n._next = (ea, eb)
                n._seq = _next_seq()
                n._hk = None
                n._prim = prim
                n._params = _EMPTY
                n._saved = [sa, sb]
                n._smask = mask
                n._outsv = None
                n._needs = needs
                n._released = False
                n._casts = casts
                n._tsv = (ta and mask & 1) or (tb and mask & 2)
                t._grad_fn = n
                if so:  # after t._grad_fn: a pack hook gets the output itself
                    n._outsv = _save_out(t)
                if _events.node_created:
                    _events.created(n)
                return t
            return _make(out)
        return _make_plain(out)
    op.__name__ = prim.name
    return op


def _require_tensor(fname: str, v: Any, what: str = "input", pos: int = 1) -> None:
    """torch's TypeError for a schema argument that must be a Tensor."""
    if not isinstance(v, Tensor):
        raise TypeError(f"{fname}(): argument '{what}' (position {pos}) must be Tensor, not "
                        f"{type(v).__name__}")


def _one_tensor(fname: str, a: Any, b: Any) -> None:
    """torch's TypeError when neither operand of ``fname`` is a Tensor (``pow(2, 3)``)."""
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{fname}() received an invalid combination of arguments - got "
                        f"({type(a).__name__}, {type(b).__name__}), but expected a Tensor "
                        "for at least one of them")


#: the parameter types of a binary function by torch's schema for Python numbers
_ACCEPTS_TYPES = {"any": ("Tensor or Number", "Tensor or Number"),
                  "one_tensor": ("Tensor or Number", "Tensor or Number"),
                  "tensor_scalar": ("Tensor", "Tensor or Number"),
                  "tensors": ("Tensor", "Tensor")}


def binary_doc(torch_name: str, summary: str, accepts: str = "tensor_scalar",
               dtype: str = "promoted", notes: str = "") -> str:
    """The docstring of the binary elementwise function ``torch.<torch_name>`` (see
    :func:`_checked` for ``accepts``); ``dtype``: the result's, ``"promoted"`` (PyTorch's
    promotion of the operands), ``"float"`` (promoted, integers to the default float
    dtype) or ``"bool"``."""
    ta, tb = _ACCEPTS_TYPES[accepts]
    one = " (at least one of the two is a Tensor)" if accepts in ("any", "one_tensor") else ""
    ret = {"promoted": "of the operands' promoted dtype (PyTorch's type promotion)",
           "float": "of the operands' promoted floating dtype (integers give the default "
                    "float dtype)",
           "bool": "of dtype bool"}[dtype]
    return docstring(
        f"Elementwise ``torch.{torch_name}``: {summary[0].lower() + summary[1:]}",
        [f"input : {ta}\n    The first operand{one}.",
         f"other : {tb}\n    The second operand, broadcast with ``input``."],
        f"Tensor\n    The broadcast shape of the operands, {ret}.", notes)


def _checked(op: Callable[[Any, Any], Any], accepts: str = "tensor_scalar",
             doc: str | None = None) -> Callable[..., Tensor]:
    """The function form of an operator: an unsupported operand is a TypeError (the
    operator itself returns NotImplemented so that Python tries the reflected one).
    ``accepts`` is torch's schema for Python numbers: ``"any"`` (``torch.add(2, 3)``),
    ``"one_tensor"`` (``torch.remainder(2, t)``, not ``(2, 3)``), ``"tensor_scalar"`` (the
    first operand is a Tensor: ``torch.eq(2, t)`` is a TypeError) or ``"tensors"`` (both:
    ``torch.maximum(t, 2)`` is a TypeError)."""
    need_a = accepts in ("tensor_scalar", "tensors")   # (decided once, not per call)
    need_b = accepts == "tensors"
    one = accepts == "one_tensor"

    def f(input: TensorOrNumber, other: TensorOrNumber) -> Tensor:  # noqa: A002
        if need_a and not isinstance(input, Tensor):
            _require_tensor(f.__name__, input)
        if need_b and not isinstance(other, Tensor):
            _require_tensor(f.__name__, other, "other", 2)
        if one:
            _one_tensor(f.__name__, input, other)
        r = op(input, other)
        if r is NotImplemented:
            raise _bad_operand(f"{op.__name__}(): ", input, other)
        return r
    f.__name__ = op.__name__
    # torch's schema: a Tensor where Python numbers are refused (a copy of the
    # annotations per function: the closures share their code)
    f.__annotations__ = dict(f.__annotations__, **{
        k: "Tensor" for k, need in (("input", need_a), ("other", need_b)) if need})
    f.__doc__ = doc or binary_doc(op.__name__, f"the ``{op.__name__}`` operation.", accepts)
    return f


