"""The machinery every optimizer of :mod:`ftrans.optim` shares.

An optimizer is a :class:`GradientTransformation` (optax's convention): ``init(params)``
builds its state, ``update(grads, state, params=None)`` returns ``(updates, new_state)``,
and :func:`apply_updates` adds the updates to the parameters.  Each optimizer is a
:class:`_Rule`: its update of one leaf written once, as a composition of ``ftrans.numpy``
operations (:meth:`_Rule.formula`), and the name of the fused CPU kernel
(:mod:`ftrans.kernels.optim_cpu`) that evaluates the same operations in one pass.  The
kernel is the implementation of the composition for concrete float NumPy arrays with no
transform active; everything else -- tracers of ``jit``, ``vmap``, ``grad``, other array
types, integer dtypes, or ``fused=False`` -- runs the composition.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from .. import numpy as fnp
from ..tree_util import tree_flatten, tree_unflatten
from ..typing import Array, ArrayLike, PyTree

__all__ = ["GradientTransformation", "apply_updates"]

#: A learning-rate schedule: ``count`` (the number of updates made, an int32 0-d array)
#: -> the learning rate (optax's ``Schedule``).
Schedule = Callable[[Array], ArrayLike]
#: A learning rate: a float, or a :data:`Schedule` (optax's ``ScalarOrSchedule``).
ScalarOrSchedule = float | Schedule


class GradientTransformation(NamedTuple):
    """An optimizer as a pair of pure functions (optax's ``GradientTransformation``).

    Parameters
    ----------
    init : callable
        ``init(params) -> state``: the state for a pytree of parameters (a NamedTuple of
        arrays and a step count ``count``, itself a pytree, so it passes through ``jit``
        and ``vmap``).
    update : callable
        ``update(grads, state, params=None, *, inplace=False) -> (updates, new_state)``:
        ``updates`` has the structure of ``grads``; apply it with :func:`apply_updates`.
        ``inplace=True`` (writable NumPy arrays only) instead writes the new parameters
        into ``params``' arrays and the new state into ``state``'s, one pass per
        parameter -- PyTorch's in-place ``optimizer.step()`` -- and returns
        ``(params, state)``.
    """

    init: Callable[..., Any]
    update: Callable[..., Any]


def apply_updates(params: PyTree, updates: PyTree) -> PyTree:
    """Add ``updates`` to ``params`` leaf by leaf (optax's ``apply_updates``).

    Each result keeps its parameter's dtype.

    Parameters
    ----------
    params : PyTree
        The parameters.
    updates : PyTree
        The updates, of ``params``' structure (what ``update`` returned).

    Returns
    -------
    PyTree
        ``params + updates``, of ``params``' structure and dtypes.

    Raises
    ------
    ValueError
        When the two pytrees' structures differ.

    Examples
    --------
    >>> import numpy as np
    >>> apply_updates({"w": np.array([1.0, 2.0])}, {"w": np.array([0.5, -0.5])})
    {'w': array([1.5, 1.5])}
    """
    pl, pdef = tree_flatten(params)
    ul, udef = tree_flatten(updates)
    if pdef != udef:
        raise ValueError(f"apply_updates: params and updates must have one structure; "
                         f"given {pdef} and {udef}")
    out = []
    for p, u in zip(pl, ul):
        r = p + u
        dt = getattr(p, "dtype", None)
        if dt is not None and r.dtype != dt:
            r = r.astype(dt)
        out.append(r)
    return tree_unflatten(pdef, out)


# ----------------------------------------------------------------------------- checks
def check_lr(lr: ScalarOrSchedule) -> ScalarOrSchedule:
    """A learning rate: a real number >= 0 or a schedule ``callable(count) -> float``."""
    if callable(lr):
        return lr
    if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
        raise TypeError(f"learning_rate must be a real number or a callable schedule "
                        f"count -> float; given {type(lr).__name__}")
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr} (expected a value >= 0)")
    return float(lr)


def check_range(name: str, value: float, lo: float = 0.0, hi: float | None = None,
                what: str | None = None) -> float:
    """``value`` as a float in ``[lo, hi)`` (``hi`` None: no upper bound); torch's message
    ``Invalid <what> value: ...`` on a ``ValueError``, ``TypeError`` for a non-number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; given {type(value).__name__}")
    if not (value >= lo and (hi is None or value < hi)):
        bound = f">= {lo}" if hi is None else f"in [{lo}, {hi})"
        raise ValueError(f"Invalid {what or name} value: {value} (expected {bound})")
    return float(value)


_LEAF = tree_flatten(np.zeros(()))[1]


_LISTS: dict[int, Any] = {}


def _flatten(tree: PyTree) -> tuple[list[Any], Any]:
    """``tree_flatten``, with no walk for the common trees of one array or a list of
    arrays (what ``compat.optim`` passes)."""
    t = type(tree)
    if t is np.ndarray:
        return [tree], _LEAF
    if t is list and all(type(x) is np.ndarray for x in tree):
        d = _LISTS.get(len(tree))
        if d is None:
            d = _LISTS[len(tree)] = tree_flatten([0] * len(tree))[1]
        return tree, d
    return tree_flatten(tree)


def _concrete(x: Any) -> bool:
    return type(x) in (float, int, np.ndarray) or isinstance(x, (np.floating, np.integer))


def _cast(dtype: np.dtype[Any]) -> Callable[[Any], Any]:
    """The per-step scalars in the leaves' (real) dtype: Python floats stay weakly typed
    (NumPy converts them to the array's dtype, as the kernels do), traced ones are cast."""
    def c(x: Any) -> Any:
        return x if type(x) is float else x.astype(dtype)
    return c


#: dtype -> (the kernels' scalar type, complex?)
_KINDS = {np.dtype(c): (np.dtype(r).type, c != r)
          for c, r in (("f4", "f4"), ("f8", "f8"), ("c8", "f4"), ("c16", "f8"))}


def _flat(a: Array, cplx: bool, rt: type[np.generic]) -> Array:
    """The 1-d view of a C-contiguous array (of its real view when complex)."""
    a = a.reshape(-1)
    return a.view(rt) if cplx else a


def _real_dtype(dt: np.dtype[Any]) -> np.dtype[Any]:
    return np.dtype(dt.char.lower()) if dt.kind == "c" else dt


def _leaf_dtype(x: Any) -> np.dtype[Any]:
    dt = getattr(x, "dtype", None)
    return np.dtype(dt) if dt is not None else np.asarray(x).dtype


# ----------------------------------------------------------------------------- rules
class _Rule:
    """One optimizer: hyper-parameters, state layout, the leaf formula and its kernel.

    Subclasses set ``state_type`` (a NamedTuple ``(count, *slots)``), ``slots`` (the state
    fields holding one array per parameter), ``kernel`` (a function of
    :mod:`ftrans.kernels.optim_cpu`), and implement :meth:`active`, :meth:`init_leaf`,
    :meth:`scalars`, :meth:`formula` and :meth:`kernel_args`.
    """

    state_type: type[Any]            # a NamedTuple (count, *slots)
    slots: tuple[str, ...] = ()
    kernel: Callable[..., Any]
    needs_params = False
    #: the smallest leaf for which ``fused=None`` calls the kernel out of place (where it
    #: measures faster than the composition; ``benchmarks/bench_optim.py``)
    fused_min_size = 0

    def __init__(self, learning_rate: ScalarOrSchedule, fused: bool | None) -> None:
        self.lr = check_lr(learning_rate)
        if fused not in (None, True, False):
            raise TypeError(f"fused must be None, True or False; given {fused!r}")
        self.fused = fused

    def transformation(self) -> GradientTransformation:
        self._act = self.active()
        self._nones = (None,) * len(self.slots)
        return GradientTransformation(self.init, self.update)

    # subclass interface ---------------------------------------------------------
    def active(self) -> tuple[bool, ...]:
        """One bool per slot: whether the state keeps it (else the field is None)."""
        return (True,) * len(self.slots)

    def init_leaf(self, p: Array) -> tuple[Array | None, ...]:
        """The slots' initial arrays for parameter ``p`` (zeros by default)."""
        return tuple(fnp.zeros_like(p) if a else None for a in self.active())

    def scalars(self, n: Any, lr: Any) -> tuple[Any, ...]:
        """Per-step scalars from the 1-based step ``n`` and the learning rate (Python
        floats, or traced 0-d arrays when either is traced)."""
        raise NotImplementedError

    def formula(self, s: tuple[Any, ...], c: Callable[[Any], Any], g: Array, p: Array | None,
                *state: Array | None) -> tuple[Any, ...]:
        """``(update, *new_state)`` of one real leaf; ``c`` casts a scalar of ``s``.

        ``p`` (without weight decay) and the inactive slots are None, and then not read:
        subclasses annotate them as arrays."""
        raise NotImplementedError

    def kernel_args(self, s: tuple[Any, ...], t: type[np.generic]) -> tuple[Any, ...]:
        """The kernel's scalar and flag arguments (``t``: the arrays' scalar type)."""
        raise NotImplementedError

    # the transformation ---------------------------------------------------------
    def init(self, params: PyTree) -> Any:
        leaves, tdef = tree_flatten(params)
        per = [self.init_leaf(p) for p in leaves]
        fields = [tree_unflatten(tdef, [x[k] for x in per]) if a else None
                  for k, a in enumerate(self.active())]
        return self.state_type(np.zeros((), np.int32), *fields)

    def update(self, grads: PyTree, state: Any, params: PyTree = None, *,
               inplace: bool = False) -> tuple[PyTree, Any]:
        if not isinstance(state, self.state_type):
            raise TypeError(f"update: state must be the {self.state_type.__name__} made by "
                            f"init(params); given {type(state).__name__}")
        gl, tdef = _flatten(grads)
        n = len(gl)
        if params is None:
            if self.needs_params or inplace:
                raise ValueError(f"{type(self).__name__[1:].lower()}.update needs params "
                                 f"(weight decay or inplace=True uses them); given None")
            pl = [None] * n
        else:
            pl, pdef = _flatten(params)
            if pdef is not tdef and pdef != tdef:
                raise ValueError(f"update: params and grads must have one structure; "
                                 f"given {pdef} and {tdef}")
        act = self._act
        sl = []
        for name, a in zip(self.slots, act):
            sub = getattr(state, name)
            if not a:
                sl.append([None] * n)
                continue
            leaves, sdef = _flatten(sub)
            if sdef is not tdef and sdef != tdef:
                raise ValueError(f"update: state.{name} must have the structure of grads; "
                                 f"given {sdef} and {tdef} (was the state made by init?)")
            sl.append(leaves)
        count = state.count
        lr: Any = self.lr(count) if callable(self.lr) else self.lr
        concrete = _concrete(count) and _concrete(lr)
        n1 = float(count) + 1.0 if _concrete(count) else (count + 1).astype(np.float64)
        s = self.scalars(n1, float(lr) if _concrete(lr) else lr)
        if inplace:
            self._check_writable(pl, sl, count)
        outs, new_state = [], [[None] * n for _ in self.slots]
        fuse = self.fused is not False and concrete
        kargs: dict[Any, tuple[Any, ...]] = {}
        for i in range(n):
            st = [x[i] for x in sl]
            r = (fuse and self._fused(s, gl[i], pl[i], st, kargs, inplace)) \
                or self._composed(s, gl[i], pl[i], st, act, inplace)
            outs.append(r[0])
            for k, a in enumerate(act):
                if a:
                    new_state[k][i] = r[k + 1]
        if inplace:
            count[...] = count + 1
            return params, state
        new_count = count + 1
        if type(count) is np.ndarray:
            new_count = np.asarray(new_count, count.dtype)
        fields = [tree_unflatten(tdef, x) if a else None for x, a in zip(new_state, act)]
        return tree_unflatten(tdef, outs), self.state_type(new_count, *fields)

    @staticmethod
    def _check_writable(pl: list[Any], sl: list[list[Any]], count: Any) -> None:
        for x in [count] + list(pl) + [y for s in sl for y in s]:
            if x is not None and (type(x) is not np.ndarray or not x.flags.writeable):
                raise TypeError(f"update(inplace=True) writes into the params' and state's "
                                f"arrays: they must be writable NumPy arrays; given "
                                f"{type(x).__name__}; use inplace=False (the functional "
                                f"update) instead")

    def _fused(self, s: tuple[Any, ...], g: Any, p: Any, st: list[Any],
               kargs: dict[Any, tuple[Any, ...]], inplace: bool) -> tuple[Any, ...] | None:
        """The kernel's result, or None when an array is not a C-contiguous float (or
        complex: its real view) NumPy array of the gradient's dtype and shape."""
        if type(g) is not np.ndarray:
            return None
        kind = _KINDS.get(g.dtype)
        if kind is None or not g.flags.c_contiguous or (
                self.fused is None and not inplace and g.size < self.fused_min_size):
            return None
        dt, shape = g.dtype, g.shape
        if p is None:
            p = g                       # not read: no weight decay, not in place
        for a in st:
            if a is not None and (type(a) is not np.ndarray or a.dtype != dt
                                  or a.shape != shape or not a.flags.c_contiguous):
                return None
        if type(p) is not np.ndarray or p.dtype != dt or p.shape != shape \
                or not p.flags.c_contiguous:
            return None
        rt, cplx = kind
        ka = kargs.get(rt)
        if ka is None:
            ka = kargs[rt] = self.kernel_args(s, rt)
        ins = [None if a is None else _flat(a, cplx, rt) for a in st]
        if inplace:
            self.kernel(_flat(p, cplx, rt), _flat(g, cplx, rt), *ins, None, *self._nones, *ka)
            return (p, *st)
        out = np.empty_like(g)
        new = [None if a is None else np.empty_like(g) for a in st]
        self.kernel(_flat(p, cplx, rt), _flat(g, cplx, rt), *ins, _flat(out, cplx, rt),
                    *[None if a is None else _flat(a, cplx, rt) for a in new], *ka)
        return (out, *new)

    def _composed(self, s: tuple[Any, ...], g: Any, p: Any, st: list[Any],
                  act: tuple[bool, ...], inplace: bool) -> Sequence[Any]:
        """The composition (the definition), on real leaves or on the real and imaginary
        parts of complex ones (PyTorch updates complex parameters as pairs of reals)."""
        dt = _leaf_dtype(g)
        if dt.kind == "c":
            def part(f: Callable[[Any], Any]) -> list[Any]:
                return [None if x is None else f(x) for x in [g, p] + st]
            re = self.formula(s, _cast(_real_dtype(dt)), *part(fnp.real))
            im = self.formula(s, _cast(_real_dtype(dt)), *part(fnp.imag))
            res = [None if a is None else a + 1j * b for a, b in zip(re, im)]
        else:
            res = list(self.formula(s, _cast(dt), g, p, *st))
        if not inplace:
            return res
        p[...] = p + res[0]
        for k, a in enumerate(act):
            if a:
                st[k][...] = res[k + 1]
        return (p, *st)
