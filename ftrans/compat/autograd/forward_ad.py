"""Forward-mode AD: PyTorch's ``torch.autograd.forward_ad`` on the compat tensors.

>>> import ftrans.compat as torch
>>> import ftrans.compat.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 0.0]))
...     y = (x.sin() * x).sum()
...     jvp = fwAD.unpack_dual(y).tangent          # J(x) @ [1, 0]

A *dual tensor* carries a *tangent* (its forward gradient) beside its value.  Inside a
dual level every differentiable compat operation with an operand that has a tangent
gives a result whose tangent is ``J @ t`` (the Jacobian of the operation at its inputs
applied to their tangents; operands without a tangent count as constants).  This is
independent of ``requires_grad`` and of grad mode: it works under ``no_grad()`` as in
PyTorch, while ``inference_mode()`` computes no tangents (PyTorch 2.13 behaves the same:
outputs computed in inference mode, and ``make_dual`` there, carry no tangent).
Semantics: the gradcheck notes (spec ``gradcheck-mechanics.md``: forward mode computes
``J_f u``; for complex functions the same real-linear map the backward pass transposes)
and PyTorch 2.13's observable behaviour, messages included.

Cost: outside a dual level an operation pays one module-global check (``_opbase._fw_on``).
Inside one, an operation with a dual operand runs its primitive's JVP rule (which
computes the primal output again) or, for a composite, traces its backward formula once
with ``ftrans.vjp``: a few microseconds per primitive operation, tens for a composite.

How a tangent is computed (source: the primitives' rules, ``ftrans.core.primitive``):

* an operation recorded as one primitive (``sin``, ``mul``, ``sum``, ``x[idx]``,
  ``matmul`` ...) applies the primitive's JVP rule ``prim.jvp(primals, tangents)``,
  with the symbolic zero for operands without a tangent;
* a composite operation (``softmax``, ``sigmoid``, ``mean``, ``clamp``, ``max(dim)`` ...)
  has a backward formula ``ct -> input cotangents`` that is linear in ``ct`` (the adjoint
  of the JVP for the real inner product ``Re <a, b>``: PyTorch's convention, autograd
  notes "Autograd for Complex Numbers").  Its JVP is the transpose of that linear map,
  computed as ``ftrans.vjp`` of the formula (at a zero cotangent) applied to the tangents;
* views (``reshape``, ``transpose``, ``x[0]``, ``real`` ...) get the same view of the
  tangent, so that an in-place operation on a view updates its base's tangent as in
  PyTorch; a view whose base got a tangent after the view was made derives its tangent
  from the base's;
* in-place operations write the result's tangent into the tensor's tangent (in place,
  as PyTorch does: the tangent tensor passed to ``make_dual`` is updated too), creating a
  zero tangent for the base of a view first when it has none;
* dtype conversions convert the tangent.

Tangents are plain arrays: there is no forward-over-forward (nested levels raise, as in
PyTorch 2.13) and no backward *through* a tangent: a tangent that requires grad is used
for its value only, the tangents computed from it do not require grad (PyTorch records
them), and gradients computed by ``backward``/``autograd.grad`` of a dual tensor carry no
tangent (PyTorch computes them: forward-over-reverse), with ``create_graph=True`` too.  A tangent whose dtype differs from its primal's (PyTorch accepts any floating or
complex tangent) is stored as given and converted to the primal's dtype when used
(a complex tangent of a real primal loses its imaginary part; PyTorch would propagate it).

Internal helpers for other compat modules (``autograd.Function.jvp``,
``autograd.functional``):

``_tangent_of(t) -> ndarray or None``
    The tangent array of tensor ``t`` at the current dual level (None outside a level or
    when ``t`` has none).  The array may be shared with other tensors: do not modify it.
``_set_tangent(t, tangent)``
    Make ``tangent`` (an array or a Tensor of ``t``'s shape) the tangent of ``t`` at the
    current level (``RuntimeError`` outside a level or on a shape mismatch).
``_active()``
    True while a dual level exists.
``_suspended()``
    Context manager under which operations compute no tangents (for running a custom
    ``Function.forward`` on the primals, as PyTorch does).  The switch is global, like the
    level itself: operations of other threads compute none meanwhile either.
"""
from __future__ import annotations

import sys
import weakref
from collections.abc import Sequence
from typing import Any, Literal, NamedTuple

import numpy as np

from ...core import zero
from ...core.trace import _ctx, EVAL
from ...primitives import indexing as I
from ...transforms.vjp import vjp_unchecked as vjp  # (cotangents cast, as torch does)
from .. import _tensor as T
from .. import _ops as O
from .. import _opbase as OB
from . import graph as G
from ._composite import CompositeNode
from .grad_mode import _DecoratorContextManager, _tls
from ..types import Tensor

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]

# PyTorch keeps one global (not thread-local) stack of forward AD levels; nesting is
# not supported, so the level is 0 or -1 (none).
_current_level = -1
# weak references to the tensors given a tangent at the current level
_registry: list[weakref.ref[Tensor]] = []
_prune_at = 4096   # _registry length at which dead references are dropped
# tangent marker: explicitly none (``unpack_dual().primal``, ``detach_``)
_NO_TANGENT: Literal[False] = False
_gen = 0           # level generation: a tensor's record ``_Extra.fw = (generation, tangent)``
                   # is current only while ``generation == _gen``

class UnpackedDualTensor(NamedTuple):
    """Result of :func:`unpack_dual`: a named tuple ``(primal, tangent)``.

    Parameters
    ----------
    primal : Tensor
        A view of the tensor without tangent.
    tangent : Tensor or None
        The tangent, or None when there is none.
    """

    primal: Tensor
    tangent: Tensor | None


# ------------------------------------------------------------------------------ levels
def enter_dual_level() -> int:
    """Enter a new forward AD level and return its index (``forward_ad.enter_dual_level``).

    Returns
    -------
    int
        The level's index, 0.

    Raises
    ------
    RuntimeError
        When a level is already active (nested forward mode AD is not supported, as in
        PyTorch 2.13).
    """
    global _current_level
    if _current_level >= 0:
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    global _gen
    _gen += 1
    _current_level = 0
    OB._fw_on = True
    return _current_level


def exit_dual_level(*, level: int | None = None) -> None:
    """Exit a forward AD level; every tangent of that level is dropped.

    Parameters
    ----------
    level : int, optional
        The level to exit; the current one by default.

    Raises
    ------
    RuntimeError
        When ``level`` is not the last level entered, or when no level exists
        (PyTorch's messages).
    """
    global _current_level
    if level is None:
        level = _current_level
    if level != _current_level:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    global _gen
    OB._fw_on = False
    _current_level = level - 1
    _gen += 1          # every record of the level is stale now ...
    reg = _registry[:]  # ... and its tangents are freed at once
    del _registry[:]
    for r in reg:
        t = r()
        if t is not None and t._x is not None:
            t._x.fw = None


class dual_level(_DecoratorContextManager):
    """Context manager (and decorator) for a forward AD level (``forward_ad.dual_level``).

    ``enter_dual_level()`` on entry (the ``as`` target is the level),
    ``exit_dual_level()`` on exit.
    """

    def __enter__(self) -> int:  # type: ignore[override]  # the level, as in PyTorch
        return enter_dual_level()

    def __exit__(self, exc_type: Any, exc_value: Any, traceback: Any) -> Literal[False]:
        exit_dual_level()
        return False


def _active() -> bool:
    return _current_level >= 0


class _suspended:
    """See the module docstring (``with _suspended(): ...``)."""

    def __enter__(self) -> None:
        self.prev = OB._fw_on
        OB._fw_on = False

    def __exit__(self, *exc: Any) -> Literal[False]:
        OB._fw_on = self.prev and _current_level >= 0
        return False


# ---------------------------------------------------------------------- tangent storage
def _store(t: Tensor, tangent: Tensor | Literal[False]) -> None:
    """Set the own tangent of ``t`` (a Tensor, or the no-tangent marker) for the current
    level."""
    x = t._x
    if x is None:
        x = T._extra(t)
    fw = x.fw
    if fw is None or fw[0] != _gen:
        _registry.append(weakref.ref(t))
        if len(_registry) > _prune_at:
            _prune()
    x.fw = (_gen, tangent)


def _own(x: Any) -> Any:
    """The own tangent record of a tensor's ``_Extra`` at the current level: a Tensor, the
    no-tangent marker, or None (none recorded)."""
    fw = x.fw
    if fw is None or fw[0] != _gen:
        return None
    return fw[1]


def _prune() -> None:
    """Drop the references to dead tensors (a long level must not grow the registry)."""
    global _prune_at
    _registry[:] = [r for r in _registry if r() is not None]
    _prune_at = max(4096, 2 * len(_registry))


def _wrap(a: Any) -> Tensor:
    if not isinstance(a, T.Tensor):
        a = T._make(np.asarray(a))
    return a


def _tangent_tensor(t: Tensor) -> Tensor | None:
    """The tangent Tensor of ``t`` at the current level, or None."""
    if _current_level < 0:
        return None
    x = t._x
    if x is None:
        return None
    fw = _own(x)
    if fw is None:
        base = x.base
        if base is None:
            return None
        bt = _tangent_tensor(base)
        if bt is None or bt._data.dtype != base._data.dtype:
            return None
        fw = _wrap(_view_chain(x.chain, bt._data))   # the base got a tangent after t
        _store(t, fw)
        return fw
    if fw is _NO_TANGENT:
        return None
    return fw


def _tangent_of(t: Tensor) -> np.ndarray | None:
    """The tangent array of ``t`` at the current level (None: none); see the module
    docstring.  Shared storage: do not modify it."""
    fw = _tangent_tensor(t)
    return None if fw is None else fw._data


def _set_tangent(t: Tensor, tangent: Any) -> None:
    """Make ``tangent`` (array or Tensor, ``t``'s shape) the tangent of ``t`` at the
    current level; see the module docstring."""
    if _current_level < 0:
        raise RuntimeError("Trying to set a forward gradient but no forward AD level exists; "
                           "enter one with forward_ad.dual_level() first.")
    tangent = _wrap(tangent)
    if tuple(tangent._data.shape) != tuple(t._data.shape):
        raise RuntimeError(_size_msg(t, tangent))
    _store(t, tangent)


def _size_msg(t: Tensor, tangent: Tensor) -> str:
    return ("Trying to set a forward gradient that has a different size than that of the "
            "original Tensor, this is not supported. Tensor is of size "
            f"{list(t._data.shape)} while the given forward gradient is of size "
            f"{list(tangent._data.shape)}.")


# ----------------------------------------------------------------------- public API
def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` whose tangent is ``tangent`` (``forward_ad.make_dual``).

    ``unpack_dual(result).tangent`` is ``tangent`` itself, and in-place operations on the
    result update ``tangent`` in place.  In ``inference_mode()`` the view carries no
    tangent (as in PyTorch).

    Parameters
    ----------
    tensor : Tensor
        The primal: floating point or complex.
    tangent : Tensor
        The forward gradient seed, ``tensor``'s shape; floating point or complex (another
        dtype than ``tensor``'s is stored as given, as in PyTorch, and converted when
        used).
    level : int, optional
        The dual level; the current one by default.

    Returns
    -------
    Tensor
        A view of ``tensor`` (``ViewBackward0`` when ``tensor`` requires grad) carrying
        the tangent.

    Raises
    ------
    RuntimeError
        When no dual level exists, ``level`` is not the current level, the shapes
        differ, ``tensor`` already has a tangent at this level, or ``tangent`` has one
        itself (PyTorch's messages).
    ValueError
        When ``tensor`` or ``tangent`` is not floating point or complex.
    """
    if level is None:
        level = _current_level
    if level < 0:
        raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                           "exists, make sure to enter_dual_level() first.")
    if not (tensor.is_floating_point() or tensor.is_complex()):
        raise ValueError(f"Expected primal to be floating point or complex, but got: "
                         f"{tensor.dtype}")
    if not (tangent.is_floating_point() or tangent.is_complex()):
        raise ValueError(f"Expected tangent to be floating point or complex, but got: "
                         f"{tangent.dtype}")
    if level != _current_level:
        raise RuntimeError("Invalid level given to _make_dual")
    if tuple(tangent._data.shape) != tuple(tensor._data.shape):
        raise RuntimeError(_size_msg(tensor, tangent))
    if _tangent_tensor(tensor) is not None:
        raise RuntimeError(f"Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    if _tangent_tensor(tangent) is not None:
        raise RuntimeError(f"Setting a forward grad that itself has a forward gradient at the "
                           f"same level{level} is not supported.")
    out = O.view(tensor, tensor._data.shape)
    if not _tls.inference:
        _store(out, tangent)
    return out


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """The primal and the tangent of ``tensor`` (``forward_ad.unpack_dual``).

    Parameters
    ----------
    tensor : Tensor
        A tensor, dual or not.
    level : int, optional
        The dual level; the current one by default.

    Returns
    -------
    UnpackedDualTensor
        ``(primal, tangent)``.  Inside a level ``primal`` is a view of ``tensor`` without
        tangent and ``tangent`` the tangent Tensor (the one given to :func:`make_dual`, or
        the one an operation computed; None when there is none).  Outside any level it is
        ``(tensor, None)``.

    Raises
    ------
    RuntimeError
        For a ``level`` that is not the current one when ``tensor`` has a tangent
        (without one, the result is ``(view, None)``, as in PyTorch).
    TypeError
        When ``tensor`` is not a Tensor.
    """
    if level is None:
        level = _current_level
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    if not isinstance(tensor, T.Tensor):
        raise TypeError(f"_unpack_dual(): argument 'dual' (position 1) must be Tensor, not "
                        f"{type(tensor).__name__}")
    tan = _tangent_tensor(tensor)
    if level != _current_level:
        if tan is not None:   # PyTorch checks the level only for a tensor with a tangent
            raise RuntimeError("Invalid level given to _fw_primal")
    primal = O.view(tensor, tensor._data.shape)
    _store(primal, _NO_TANGENT)
    return UnpackedDualTensor(primal, tan)


# ------------------------------------------------------------------- operation sites
def _record(cls: Any, prim: Any, params: dict[str, Any], args: Sequence[Any],
            datas: Sequence[Any], out: Any, save: Any, casts: Any) -> Tensor:
    """``_ops._record`` inside a dual level: the output tensor, with a tangent when an
    operand has one (see the module docstring)."""
    t = O._record(cls, prim, params, args, datas, out, save, casts, _fw=False)
    if _tls.inference or _ctx.trace is not EVAL:
        return t   # inference mode, or a create_graph backward recording its formulas
    od = t._data
    if od.dtype.kind not in "fc":
        return t
    tans: list[Any] | None = None
    for i, a in enumerate(args):
        if isinstance(a, T.Tensor):
            ta = _tangent_of(a)
            if ta is not None:
                if tans is None:
                    tans = [None] * len(args)
                tans[i] = ta
    if tans is None:
        return t
    tout = _jvp(cls, prim, params, datas, od, tans)
    for ta in tans:
        if ta is not None and np.may_share_memory(tout, ta):
            tout = tout.copy()   # a view output gets a view again in _view_tangent
            break
    _store(t, T._make(tout))
    return t


def _as_tangent(tn: Any, like: Any) -> Any:
    """Tangent array ``tn`` converted to the dtype of the primal value ``like``."""
    dt = like.dtype
    if tn.dtype == dt:
        return tn
    if tn.dtype.kind == "c" and dt.kind != "c":
        tn = tn.real
    return tn.astype(dt)


def _jvp(cls: Any, prim: Any, params: dict[str, Any], datas: Sequence[Any], out: Any,
         tans: Sequence[Any]) -> np.ndarray:
    tangents = [zero if tn is None else _as_tangent(tn, datas[i]) for i, tn in enumerate(tans)]
    if prim is not None and cls._bwd is G.OpNode._bwd:
        tout = prim.jvp(list(datas), tangents, **params)[1]
    elif issubclass(cls, CompositeNode):   # prim: the composition itself
        tout = cls.tangent(prim, params, list(datas), tangents)
    else:
        tout = _transpose_formula(cls, prim, params, datas, out, tangents)
    if tout is zero:
        return np.zeros(out.shape, out.dtype)
    tout = np.asarray(tout)
    if tout.dtype != out.dtype:
        tout = _as_tangent(tout, out)
    if tout.shape != out.shape:
        tout = np.broadcast_to(tout, out.shape).copy()
    return tout


class _Probe:
    """Stand-in for the node a composite backward formula reads its parameters from."""

    __slots__ = ("_params", "_prim", "_needs")

    def __init__(self, params: dict[str, Any], prim: Any, needs: tuple[bool, ...]) -> None:
        self._params = params
        self._prim = prim
        self._needs = needs


def _transpose_formula(cls: Any, prim: Any, params: dict[str, Any], datas: Sequence[Any],
                       out: Any, tangents: list[Any]) -> Any:
    """``J @ t`` of a composite operation from its backward formula ``ct -> J^* ct``: the
    VJP of that linear map (at a zero cotangent) applied to the operands' tangents."""
    needs = tuple(tn is not zero for tn in tangents)
    idx = [i for i, n in enumerate(needs) if n]
    node = _Probe(params, prim, needs)
    primals = list(datas)

    def formula(ct: Any) -> list[Any]:
        res = cls._bwd(node, ct, primals, out, needs)
        return [np.zeros(np.shape(datas[i]), tangents[i].dtype) if res[i] is None else res[i]
                for i in idx]

    _, vjp_fn = vjp(formula, np.zeros(out.shape, out.dtype))
    (tout,) = vjp_fn([tangents[i] for i in idx])
    return tout


def _view1(prim: Any, params: dict[str, Any], extra: Sequence[Any], a: Any) -> Any:
    """The view ``prim`` (with ``params`` and extra operands) of the array ``a``."""
    if prim is I.gather_p and not extra:
        return O._basic_index(a, params["template"])
    return prim.impl(a, *extra, **params)


def _view_chain(chain: Sequence[Any], a: Any) -> Any:
    for prim, params, meta, extra in chain:
        a = _view1(prim, params, extra, a)
    return a


def _view_tangent(out: Tensor, src: Tensor, prim: Any, params: dict[str, Any],
                  extra: Sequence[Any]) -> None:
    """Called by ``_mark_view`` for a view ``out`` of ``src`` that got a tangent: make
    the tangent the same view of ``src``'s tangent."""
    st = _tangent_tensor(src)
    if st is None:
        return
    sd = st._data
    if sd.dtype != src._data.dtype:
        return   # a tangent of another dtype: keep the converted copy
    v = _view1(prim, params, extra, sd)
    if np.shape(v) == out._data.shape:
        _store(out, T._make(v))


def _commit_tangent(self: Tensor, r: Tensor) -> None:
    """Called by ``_ops._commit`` after ``r`` was written into ``self`` in place: ``self``'s
    tangent becomes ``r``'s (written into the existing tangent, as PyTorch does)."""
    if _tls.inference or self._data.dtype.kind not in "fc":
        return
    rt = _tangent_of(r)
    st = _tangent_of(self)
    if rt is None:
        if st is None:
            return
        rt = np.zeros(self._data.shape, self._data.dtype)
    rt = _as_tangent(rt, self._data)
    if st is not None and _writable_like(st, self._data):
        np.copyto(st, rt)
        return
    x = self._x
    if x is not None and x.base is not None and _own(x) is not _NO_TANGENT:
        base = x.base
        bd = base._data
        if bd.dtype.kind in "fc":
            bt = _tangent_of(base)
            if bt is None:
                bt = np.zeros(bd.shape, bd.dtype)
                _store(base, T._make(bt))
            if _writable_like(bt, bd):
                vt = _view_chain(x.chain, bt)
                if isinstance(vt, np.ndarray) and _writable_like(vt, self._data) and \
                        np.may_share_memory(vt, bt):
                    np.copyto(vt, rt)
                    _store(self, T._make(vt))
                    return
    if np.may_share_memory(rt, r._data):
        rt = rt.copy()
    _store(self, T._make(rt))


def _writable_like(a: Any, like: Any) -> bool:
    return (isinstance(a, np.ndarray) and a.flags.writeable and a.shape == like.shape
            and a.dtype == like.dtype)


def _repr_tangent(t: Tensor) -> Tensor | None:
    """The tangent Tensor shown by ``repr`` (None: none)."""
    return _tangent_tensor(t)


# _tensor and _ops call this module back (tangents of their operations) but are below it:
# it hands itself to them instead of being imported by them (see _tensor._fwad)
# (setattr: the two modules declare ``_fwad = None`` until this line)
for _m in (T, OB):
    setattr(_m, "_fwad", sys.modules[__name__])
del _m
