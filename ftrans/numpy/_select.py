"""Choosing, placing and rearranging: ``choose``, ``select``, ``piecewise``, ``insert``,
``resize``, ``trim_zeros``, ``rollaxis``, ``block``, and NumPy's in-place writers ``put``,
``place``, ``putmask``, ``fill_diagonal`` and ``copyto``.

Every array piece (the choices, the inserted/written values, the array written into) is
differentiable: the results are gathers, ``where`` selections and scatters of them, so the
derivative of an element goes to the piece it came from.

In-place functions.  NumPy's ``put``/``place``/``putmask``/``fill_diagonal``/``copyto``
modify their first argument and return None.  ftrans follows NumPy on a plain
``numpy.ndarray`` (it is modified in place), but a traced array cannot be modified: those
calls raise ``TypeError``.  Each takes ``inplace=False`` (``jax.numpy``'s keyword for
``put``/``place``/``fill_diagonal``) to return the updated array instead -- the functional
form to use inside transformed functions::

    a = fnp.put(a, [0, 2], v, inplace=False)
"""
from __future__ import annotations

import builtins
import operator

import numpy as np

from ..core import Tracer
from .. import primitives as P
from ..core.dtypes import kind_of as _kind_of
from . import _funcs as F
from ._indexing import _update, take_along_axis as _take_along_axis
from ._search import _values, _need_size
from ._nanreductions import any as _any

__all__ = ["choose", "select", "piecewise", "insert", "resize", "trim_zeros", "rollaxis",
           "block", "put", "place", "putmask", "fill_diagonal", "copyto"]

_nd = F._ndarray
_INT = np.dtype(np.int64)


def _cast(x, dtype):
    x = _nd(x)
    return x if np.dtype(x.dtype) == np.dtype(dtype) else P.convert_element_type(x, dtype)


def _has_tracer(*xs):
    return builtins.any(isinstance(x, Tracer) for x in xs)


# ---------------------------------------------------------------------------------
# choose, select, piecewise
# ---------------------------------------------------------------------------------
def choose(a, choices, out=None, mode="raise"):
    """``numpy.choose``: ``choices[a[i]][i]`` elementwise (``a``, the integer selector,
    and every choice broadcast together).  Differentiable in the choices.

    ``mode``: ``'raise'`` (out-of-range selectors raise ``ValueError``; checked on
    concrete ``a``), ``'wrap'`` (modulo) or ``'clip'``.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> fnp.choose(np.array([0, 1, 0]), [np.array([1., 2., 3.]), np.array([10., 20., 30.])])
    array([ 1., 20.,  3.])
    """
    if out is not None:
        raise ValueError("choose: out= is not supported (ftrans.numpy is functional)")
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap', got {mode!r}")
    a = _nd(a)
    if _kind_of(a) not in "iub":
        raise TypeError(f"choose: the selector `a` must be integer, got dtype {a.dtype}")
    cs = [_nd(c) for c in (choices if isinstance(choices, (list, tuple)) else
                           [choices[i] for i in range(_nd(choices).shape[0])])]
    n = len(cs)
    if n == 0:
        raise ValueError("choose: `choices` must not be empty")
    dt = np.result_type(*[np.dtype(c.dtype) for c in cs])
    shape = np.broadcast_shapes(tuple(a.shape), *[tuple(c.shape) for c in cs])
    if mode == "raise":
        vals = _values(a)
        if vals is not None and vals[0].size and (vals[0].min() < 0 or vals[0].max() >= n):
            raise ValueError("invalid entry in choice array")
        sel = a
    elif mode == "wrap":
        sel = P.remainder(a, n)
    else:
        sel = P.minimum(P.maximum(a, 0), n - 1)
    stacked = F.stack([P.broadcast_to(_cast(c, dt), shape) for c in cs], 0)
    idx = P.reshape(P.broadcast_to(_cast(sel, _INT), shape), (1,) + tuple(shape))
    return F.reshape(_take_along_axis(stacked, idx, 0), shape)


def select(condlist, choicelist, default=0):
    """``numpy.select``: elementwise, the choice of the *first* true condition (else
    ``default``).  Differentiable in the choices and ``default``.

    Raises
    ------
    ValueError
        ``condlist`` and ``choicelist`` of different lengths, or empty.
    TypeError
        A condition that is not boolean.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> x = np.arange(4.)
    >>> fnp.select([x < 1, x < 3], [x, -x], default=9.)
    array([ 0., -1., -2.,  9.])
    """
    if len(condlist) != len(choicelist):
        raise ValueError("list of cases must be same length as list of conditions")
    if len(choicelist) == 0:
        raise ValueError("select with an empty condition list is not possible")
    conds = [_nd(c) for c in condlist]
    for i, c in enumerate(conds):
        if _kind_of(c) != "b":
            raise TypeError(f"invalid entry {i} in condlist: should be boolean ndarray")
    choices = [F._arr(c) for c in choicelist] + [F._arr(default)]
    dt = np.result_type(*[c if isinstance(c, (bool, int, float, complex)) else
                          np.dtype(c.dtype) for c in choices])
    out = _cast(choices[-1], dt)
    for c, v in zip(reversed(conds), reversed(choices[:-1])):
        out = P.where(c, _cast(v, dt), out)
    shape = np.broadcast_shapes(*[tuple(_nd(x).shape) for x in conds + choices])
    return out if tuple(out.shape) == shape else P.broadcast_to(out, shape)


def piecewise(x, condlist, funclist, *args, **kw):
    """``numpy.piecewise``: ``funclist[i](x[condlist[i]])`` where ``condlist[i]`` holds
    (later conditions win; one extra function is the "otherwise" case); a non-callable
    entry is a constant.  The result has ``x``'s dtype and shape.

    With concrete conditions (eagerly, under ``grad``/``jvp``), each function sees only
    its elements, as in NumPy, so a function undefined elsewhere (``log`` of the
    negatives) is harmless.  Under ``jit``/``vmap`` each function is evaluated on all of
    ``x`` and the results selected with ``where`` (``jax.numpy``'s rule); its derivative
    is then NaN-free only where the function is finite everywhere.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> f = lambda x: fnp.sum(fnp.piecewise(x, [x < 0], [lambda v: fnp.log(-v), lambda v: v]))
    >>> ftrans.grad(f)(np.array([-2., 3.]))
    array([-0.5,  1. ])
    """
    x = _nd(x)
    if isinstance(condlist, (np.ndarray, Tracer)):
        single = condlist.ndim in (0, x.ndim)
    elif isinstance(condlist, (list, tuple)):
        single = x.ndim != 0 and not (condlist and isinstance(
            condlist[0], (list, tuple, np.ndarray, Tracer)))
    else:
        single = True
    conds = [P.broadcast_to(_cast(c, np.dtype(bool)), tuple(x.shape))
             for c in ([condlist] if single else condlist)]
    n = len(conds)
    if len(funclist) not in (n, n + 1):
        raise ValueError(f"with {n} condition(s), either {n} or {n + 1} functions are "
                         f"expected, got {len(funclist)}")
    if len(funclist) == n + 1:
        other = P.logical_not(_any(F.stack(conds, 0), axis=0)) if n else \
            np.ones(tuple(x.shape), bool)
        conds = conds + [other]
    y = np.zeros(tuple(x.shape), x.dtype)
    cvals = _values(*conds)
    for i, (c, f) in enumerate(zip(conds, funclist)):
        if cvals is not None:
            pos = np.flatnonzero(cvals[i])
            if pos.size == 0:
                continue
            v = _cast(f(P.gather(F.ravel(x), pos), *args, **kw) if callable(f) else f,
                      x.dtype)
            v = P.broadcast_to(v, (pos.size,))
            y = F.reshape(_update(F.ravel(y), pos, v, "set"), tuple(x.shape))
        else:
            v = _cast(f(x, *args, **kw) if callable(f) else f, x.dtype)
            y = P.where(c, P.broadcast_to(v, tuple(x.shape)), y)
    return y


# ---------------------------------------------------------------------------------
# insert, resize, trim_zeros, rollaxis, block
# ---------------------------------------------------------------------------------
def _arrange(tags, pieces, dtype):
    """Gather the elements the NumPy-computed integer ``tags`` address in the
    concatenation of the flattened ``pieces``."""
    flat = F.concatenate([F.ravel(_cast(p, dtype)) for p in pieces], 0)
    return P.gather(flat, tags)


def insert(arr, obj, values, axis=None):
    """``numpy.insert``: ``values`` inserted before the index/indices ``obj`` along
    ``axis`` (flattened when None).  Differentiable in ``arr`` and ``values``
    (``values`` is broadcast, as in NumPy: a value inserted several times gets the sum of
    their cotangents).  ``obj`` must be concrete (the result shape depends on it).

    The layout is NumPy's own: ``numpy.insert`` is run on integer tags of the elements,
    and the result gathered by them.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> fnp.insert(np.array([1., 2., 3.]), [1, 3], np.array([7., 8.]))
    array([1., 7., 2., 3., 8.])
    """
    if isinstance(obj, Tracer):
        raise TypeError("insert: `obj` must be concrete (the result shape depends on it)")
    a, v = _nd(arr), _nd(values)
    ta = np.arange(a.size, dtype=np.int64).reshape(tuple(a.shape))
    tv = np.arange(a.size, a.size + v.size, dtype=np.int64).reshape(tuple(v.shape))
    tags = np.insert(ta, obj, tv, axis=axis)
    return _arrange(tags, [a, v], a.dtype)


def resize(a, new_shape):
    """``numpy.resize``: ``ravel(a)`` repeated cyclically to fill ``new_shape``
    (zeros when ``a`` is empty).  Differentiable (repeated elements sum their
    cotangents)."""
    a = _nd(a)
    if isinstance(new_shape, (int, np.integer)):
        new_shape = (new_shape,)
    new_shape = tuple(operator.index(d) for d in new_shape)
    if builtins.any(d < 0 for d in new_shape):
        raise ValueError("all elements of `new_shape` must be non-negative")
    if a.size == 0 or 0 in new_shape:
        return np.zeros(new_shape, a.dtype)
    tags = np.resize(np.arange(a.size, dtype=np.int64), new_shape)
    return P.gather(F.ravel(a), tags)


def trim_zeros(filt, trim="fb", axis=None):
    """``numpy.trim_zeros``: ``filt`` without its leading (``'f'``) and/or trailing
    (``'b'``) zeros, along ``axis`` (None: every axis, to the bounding box of the
    nonzeros; NumPy >= 2.2).  Differentiable in the kept elements; the values must be
    concrete (the result shape depends on them)."""
    f = _nd(filt)
    trim = trim.lower()
    if builtins.any(ch not in "fb" for ch in trim):
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    vals = _values(f)
    if vals is None:
        raise _need_size("trim_zeros", "concrete values (no size= variant exists)")
    c = vals[0]
    axes = tuple(range(c.ndim)) if axis is None else (F._axis(axis, c.ndim),)
    nz = c != 0
    idx = [slice(None)] * c.ndim
    for ax in axes:
        other = tuple(i for i in range(c.ndim) if i != ax)
        hit = np.flatnonzero(nz.any(axis=other) if other else nz)
        if hit.size == 0:
            start, stop = 0, 0
        else:
            start = int(hit[0]) if "f" in trim else 0
            stop = int(hit[-1]) + 1 if "b" in trim else c.shape[ax]
        idx[ax] = slice(start, stop)
    return P.gather(f, tuple(idx))


def rollaxis(a, axis, start=0):
    """``numpy.rollaxis``: move ``axis`` to before position ``start`` (prefer
    ``moveaxis``); a transpose, differentiable."""
    a = _nd(a)
    n = a.ndim
    axis = F._axis(axis, n)
    start = operator.index(start)
    if not -n <= start < n + 1:
        raise np.exceptions.AxisError(
            f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if start < 0:
        start += n
    if axis < start:
        start -= 1
    if axis == start:
        return a
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return F.transpose(a, axes)


def _block_depth(x, where="arrays"):
    if isinstance(x, tuple):
        raise TypeError(f"{where} is a tuple. Only lists can be used to arrange blocks, and "
                        "np.block does not allow implicit conversion from tuple to ndarray.")
    if not isinstance(x, list):
        return 0, _nd(x).ndim
    if not x:
        raise ValueError(f"List at {where} cannot be empty")
    depths = [_block_depth(e, f"{where}[{i}]") for i, e in enumerate(x)]
    if builtins.any(d[0] != depths[0][0] for d in depths):
        raise ValueError(f"List depths are mismatched at {where}: all the elements of a list "
                         "must be nested equally deep")
    return depths[0][0] + 1, builtins.max(d[1] for d in depths)


def block(arrays):
    """``numpy.block``: assemble an array from nested lists of blocks (the innermost
    lists are concatenated along the last axis, the next level along the second last
    ...; blocks get leading unit axes up to the result's rank).  Differentiable."""
    depth, ndim = _block_depth(arrays)
    rank = builtins.max(depth, ndim)

    def rec(x, level):
        if isinstance(x, list):
            return F.concatenate([rec(e, level + 1) for e in x], axis=-(depth - level))
        x = _nd(x)
        return F.reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape)) if x.ndim < rank else x

    out = rec(arrays, 0)
    return out


# ---------------------------------------------------------------------------------
# NumPy's in-place writers: in place on ndarrays, functional with inplace=False
# ---------------------------------------------------------------------------------
def _inplace(name, inplace, a, *others):
    """True: mutate the ndarray ``a`` with NumPy's function.  Raise where that is
    impossible (a traced array, or traced values written into an ndarray)."""
    if inplace is False:
        return False
    if inplace is not True:
        raise ValueError(f"{name}: inplace must be True or False, got {inplace!r}")
    if isinstance(a, np.ndarray) and not _has_tracer(*others):
        return True
    raise TypeError(
        f"ftrans.numpy.{name} cannot modify a traced array (or write traced values into "
        f"a NumPy array) in place: call it with inplace=False and use the array it returns, "
        f"e.g. a = fnp.{name}(a, ..., inplace=False)")


def _cycled(v, n, dtype):
    """The first ``n`` elements of ``ravel(v)`` repeated cyclically."""
    vf = F.ravel(_cast(v, dtype))
    if vf.shape[0] == 0:
        if n:
            raise ValueError("Cannot insert from an empty array!")
        return vf
    return P.gather(vf, np.arange(n) % vf.shape[0])


def put(a, ind, v, mode="raise", *, inplace=True):
    """``numpy.put``: ``a.flat[ind] = v`` (``v`` repeated cyclically; the last write wins
    for repeated indices; ``mode`` ``'raise'``/``'wrap'``/``'clip'``).  In place on an
    ndarray (returns None); ``inplace=False``: the new array, differentiable in ``a`` and
    ``v``.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> a = np.zeros(4)
    >>> fnp.put(a, [0, 2], [5., 6.], inplace=False)
    array([5., 0., 6., 0.])
    >>> ftrans.grad(lambda v: fnp.sum(fnp.put(a, [1], v, inplace=False) ** 2))(np.array([3.]))
    array([6.])
"""
    if _inplace("put", inplace, a, ind, v):
        return np.put(a, ind, v, mode=mode)
    if mode not in ("raise", "wrap", "clip"):
        raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap', got {mode!r}")
    a = _nd(a)
    i = F.ravel(_nd(ind))
    n = a.size
    vals = _values(i)
    if mode == "raise" and vals is not None and vals[0].size and \
            (vals[0].min() < -n or vals[0].max() >= n):
        raise IndexError(f"index {vals[0].max() if vals[0].max() >= n else vals[0].min()} "
                         f"is out of bounds for axis 0 with size {n}")
    if i.shape[0] == 0:
        return a
    i = _cast(i, _INT)
    if mode == "wrap":
        i = P.remainder(i, n)
    elif mode == "clip":
        i = P.minimum(P.maximum(i, 0), n - 1)
    else:
        i = P.where(P.lt(i, 0), P.add(i, n), i)
    return F.reshape(_update(F.ravel(a), i, _cycled(v, i.shape[0], a.dtype), "set"),
                     tuple(a.shape))


def _mask_of(name, a, mask):
    """``a`` and the boolean ``mask`` reshaped to it (NumPy: the same size)."""
    a, m = _nd(a), _nd(mask)
    if a.size != m.size:
        raise ValueError(f"{name}: mask and data must be the same size, got {m.size} "
                         f"and {a.size} elements")
    return a, P.reshape(_cast(m, np.dtype(bool)), tuple(a.shape))


def place(arr, mask, vals, *, inplace=True):
    """``numpy.place``: the elements of ``arr`` where ``mask`` is true get the first
    values of ``vals``, in order (repeated cyclically).  In place on an ndarray; with
    ``inplace=False`` the new array, differentiable in ``arr`` and ``vals``; ``mask`` may
    be traced."""
    if _inplace("place", inplace, arr, mask, vals):
        return np.place(arr, mask, vals)
    a, m = _mask_of("place", arr, mask)
    vf = F.ravel(_cast(vals, a.dtype))
    L = vf.shape[0]
    if L == 0:
        mv = _values(m)
        if mv is not None and not mv[0].any():
            return a
        raise ValueError("Cannot insert from an empty array!")
    k = P.sub(P.cumsum(P.convert_element_type(F.ravel(m), _INT), 0), 1)
    take = P.gather(vf, P.remainder(P.maximum(k, 0), L))
    return P.where(m, F.reshape(take, tuple(a.shape)), a)


def putmask(a, /, mask, values, *, inplace=True):
    """``numpy.putmask``: ``a.flat[n] = values[n % len(values)]`` where ``mask.flat[n]``
    (``mask`` of ``a``'s size).  In place on an ndarray; with ``inplace=False`` the new
    array, differentiable in ``a`` and ``values``."""
    if _inplace("putmask", inplace, a, mask, values):
        return np.putmask(a, mask, values)
    a, m = _mask_of("putmask", a, mask)
    if _nd(values).size == 0:
        return a
    return P.where(m, F.reshape(_cycled(values, a.size, a.dtype), tuple(a.shape)), a)


def fill_diagonal(a, val, wrap=False, *, inplace=True):
    """``numpy.fill_diagonal``: write ``val`` (repeated cyclically) on the main diagonal
    of ``a`` (2-d, or n-d with all sides equal); ``wrap`` continues the diagonal of a
    tall matrix every ``M + 1`` rows.  In place on an ndarray; with ``inplace=False`` the
    new array, differentiable in ``a`` and ``val``."""
    if _inplace("fill_diagonal", inplace, a, val):
        return np.fill_diagonal(a, val, wrap)
    a = _nd(a)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        step = a.shape[1] + 1
        end = None if wrap else a.shape[1] * a.shape[1]
    else:
        if builtins.any(d != a.shape[0] for d in a.shape):
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(np.cumprod(a.shape[:-1]).sum())
        end = None
    pos = np.arange(a.size, dtype=np.int64)[:end:step]
    if pos.size == 0:
        return a
    return F.reshape(_update(F.ravel(a), pos, _cycled(val, pos.size, a.dtype), "set"),
                     tuple(a.shape))


def copyto(dst, src, casting="same_kind", where=True, *, inplace=True):
    """``numpy.copyto``: ``dst[...] = src`` (broadcast) where ``where`` holds, if ``src``'s
    dtype casts to ``dst``'s under ``casting``.  In place on an ndarray; with
    ``inplace=False`` the new array, differentiable in ``dst`` and ``src``.

    Raises
    ------
    TypeError
        ``src``'s dtype cannot be cast under ``casting``.
    """
    if _inplace("copyto", inplace, dst, src, where):
        return np.copyto(dst, src, casting=casting, where=where)
    d, s = _nd(dst), F._arr(src)
    sdt = np.dtype(type(s)) if isinstance(s, (bool, int, float, complex)) else \
        np.dtype(s.dtype)
    if not isinstance(s, (bool, int, float, complex)) and \
            not np.can_cast(sdt, np.dtype(d.dtype), casting):
        raise TypeError(f"Cannot cast array data from dtype('{sdt}') to dtype('{d.dtype}') "
                        f"according to the rule {casting!r}")
    s = P.broadcast_to(_cast(s, d.dtype), tuple(d.shape))
    if where is True:
        return s
    return P.where(P.broadcast_to(_nd(where), tuple(d.shape)), s, d)
