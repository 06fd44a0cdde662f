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
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import Tracer
from ..core.dtypes import kind_of as _kind_of
from ..typing import Array, ArrayLike, Axis, ShapeLike
from . import _funcs as F
from ._indexing import _update, take_along_axis as _take_along_axis
from ._search import _values, _need_size
from ._nanreductions import any as _any
from ._args import P

__all__ = ["choose", "select", "piecewise", "insert", "resize", "trim_zeros", "rollaxis",
           "block", "put", "place", "putmask", "fill_diagonal", "copyto"]

_nd = F._ndarray
_INT = np.dtype(np.int64)


def _cast(x: Any, dtype: Any) -> Any:
    x = _nd(x)
    return x if np.dtype(x.dtype) == np.dtype(dtype) else P.convert_element_type(x, dtype)


def _has_tracer(*xs: Any) -> bool:
    return builtins.any(isinstance(x, Tracer) for x in xs)


# ---------------------------------------------------------------------------------
# choose, select, piecewise
# ---------------------------------------------------------------------------------
def choose(a: ArrayLike, choices: Sequence[ArrayLike], out: None = None,
           mode: str = "raise") -> Array:
    """Construct an array from an index array and a list of arrays to choose from.

    ``choices[a[i]][i]`` elementwise (``a`` and every choice broadcast together).

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> fnp.choose(np.array([0, 1, 0]), [np.array([1., 2., 3.]), np.array([10., 20., 30.])])
    array([ 1., 20.,  3.])

    Parameters
    ----------
    a : array_like of int
        The selector.
    choices : sequence of array_like
        The arrays to choose from.
    out : None
        Not supported.
    mode : {'raise', 'wrap', 'clip'}, optional
        Out-of-range selectors raise (checked on
        concrete ``a``), wrap (modulo) or clip.

    Returns
    -------
    Array
        The broadcast shape.

    Raises
    ------
    ValueError
        Out-of-range selectors with ``'raise'``, an unknown mode, or ``out``.
    TypeError
        A non-integer selector.

    Notes
    -----
    Differentiable in the choices.
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


def select(condlist: Sequence[ArrayLike], choicelist: Sequence[ArrayLike],
           default: ArrayLike = 0) -> Array:
    """Elementwise, the choice of the first true condition (else ``default``).


    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> x = np.arange(4.)
    >>> fnp.select([x < 1, x < 3], [x, -x], default=9.)
    array([ 0., -1., -2.,  9.])

    Parameters
    ----------
    condlist : sequence of array_like of bool
        The conditions.
    choicelist : sequence of array_like
        One choice per condition.
    default : array_like, optional
        Where no condition holds.

    Returns
    -------
    Array
        The broadcast shape.

    Raises
    ------
    ValueError
        ``condlist`` and ``choicelist`` of different lengths, or empty.
    TypeError
        A condition that is not boolean.

    Notes
    -----
    Differentiable in the choices and ``default``.
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


def piecewise(x: ArrayLike, condlist: Any, funclist: Sequence[Any], *args: Any,
              **kw: Any) -> Array:
    """Evaluate a piecewise-defined function.

    ``funclist[i](x[condlist[i]])`` where ``condlist[i]`` holds (later conditions win; one
    extra function is the "otherwise" case); a non-callable entry is a constant.  With
    concrete conditions (eagerly, under ``grad``/``jvp``) each function sees only its
    elements, as in NumPy; under ``jit``/``vmap`` each is evaluated on all of ``x`` and the
    results selected with ``where`` (``jax.numpy``'s rule).

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> f = lambda x: fnp.sum(fnp.piecewise(x, [x < 0], [lambda v: fnp.log(-v), lambda v: v]))
    >>> ftrans.grad(f)(np.array([-2., 3.]))
    array([-0.5,  1. ])

    Parameters
    ----------
    x : array_like
        The input domain.
    condlist : array_like of bool or sequence of them
        The conditions.
    funclist : sequence of callable or scalar
        One function (or constant) per condition,
        plus an optional "otherwise".
    *args : Any
        Further positional arguments of the functions.
    **kw : Any
        Further keyword arguments of the functions.

    Returns
    -------
    Array
        ``x``'s shape and dtype.

    Raises
    ------
    ValueError
        If ``funclist`` has the wrong length.

    Notes
    -----
    Differentiable; under ``jit``/``vmap`` the derivative is NaN-free only where every
    function is finite on all of ``x``.
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
def _arrange(tags: Any, pieces: Any, dtype: Any) -> Any:
    """Gather the elements the NumPy-computed integer ``tags`` address in the
    concatenation of the flattened ``pieces``."""
    flat = F.concatenate([F.ravel(_cast(p, dtype)) for p in pieces], 0)
    return P.gather(flat, tags)


def insert(arr: ArrayLike, obj: Any, values: ArrayLike, axis: int | None = None) -> Array:
    """Insert values before the given indices along an axis.

    The layout is NumPy's own: ``numpy.insert`` runs on integer tags of the elements,
    and the result is gathered by them.

    Examples
    --------
    >>> import numpy as np, ftrans.numpy as fnp
    >>> fnp.insert(np.array([1., 2., 3.]), [1, 3], np.array([7., 8.]))
    array([1., 7., 2., 3., 8.])

    Parameters
    ----------
    arr : array_like
        Input array.
    obj : int, slice or sequence of int
        Insertion indices (concrete).
    values : array_like
        Values to insert (broadcast, as in NumPy).
    axis : int, optional
        The axis; the flattened array by default.

    Returns
    -------
    Array
        ``arr`` with the values inserted.

    Raises
    ------
    TypeError
        If ``obj`` is traced.

    Notes
    -----
    Differentiable in ``arr`` and ``values`` (a value inserted several times gets the sum of
    their cotangents).
    """
    if isinstance(obj, Tracer):
        raise TypeError("insert: `obj` must be concrete (the result shape depends on it)")
    a, v = _nd(arr), _nd(values)
    ta = np.arange(a.size, dtype=np.int64).reshape(tuple(a.shape))
    tv = np.arange(a.size, a.size + v.size, dtype=np.int64).reshape(tuple(v.shape))
    tags = np.insert(ta, obj, tv, axis=axis)
    return _arrange(tags, [a, v], a.dtype)


def resize(a: ArrayLike, new_shape: ShapeLike) -> Array:
    """``ravel(a)`` repeated cyclically to fill a new shape (zeros when ``a`` is empty).

    Parameters
    ----------
    a : array_like
        Input array.
    new_shape : int or sequence of int
        Shape of the result.

    Returns
    -------
    Array
        Shape ``new_shape``.

    Raises
    ------
    ValueError
        For negative dimensions.

    Notes
    -----
    Differentiable (repeated elements sum their cotangents).
    """
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


def trim_zeros(filt: ArrayLike, trim: str = "fb", axis: Axis = None) -> Array:
    """Trim leading and/or trailing zeros.

    Parameters
    ----------
    filt : array_like
        Input array (concrete values: the result shape depends on them).
    trim : str, optional
        ``'f'`` trims the front, ``'b'`` the back, ``'fb'`` both.
    axis : int or tuple of int, optional
        Axes to trim; every axis by default (to the
        bounding box of the nonzeros; NumPy >= 2.2).

    Returns
    -------
    Array
        The trimmed array.

    Raises
    ------
    ValueError
        For an invalid ``trim``.
    ConcretizationError
        For abstract ``filt`` (inside ``jit``/``vmap``).

    Notes
    -----
    Differentiable in the kept elements.
    """
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


def rollaxis(a: ArrayLike, axis: int, start: int = 0) -> Array:
    """Move an axis to before the position ``start`` (prefer :func:`moveaxis`).

    Parameters
    ----------
    a : array_like
        Input array.
    axis : int
        The axis to move.
    start : int, optional
        The position it is moved before.

    Returns
    -------
    Array
        The transposed array.

    Raises
    ------
    numpy.exceptions.AxisError
        For an out-of-range ``axis`` or ``start``.

    Notes
    -----
    Differentiable (linear).
    """
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


def _block_depth(x: Any, where: str = "arrays") -> Any:
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


def block(arrays: Any) -> Array:
    """Assemble an array from nested lists of blocks.

    The innermost lists are concatenated along the last axis, the next level along the
    second last ...; blocks get leading unit axes up to the result's rank.

    Parameters
    ----------
    arrays : nested list of array_like
        The blocks.

    Returns
    -------
    Array
        The assembled array.

    Raises
    ------
    ValueError
        For lists of inconsistent depth or empty lists.
    TypeError
        For tuples among the lists.

    Notes
    -----
    Differentiable (linear).
    """
    depth, ndim = _block_depth(arrays)
    rank = builtins.max(depth, ndim)

    def rec(x: Any, level: int) -> Array:
        if isinstance(x, list):
            return F.concatenate([rec(e, level + 1) for e in x], axis=-(depth - level))
        x = _nd(x)
        return F.reshape(x, (1,) * (rank - x.ndim) + tuple(x.shape)) if x.ndim < rank else x

    out = rec(arrays, 0)
    return out


# ---------------------------------------------------------------------------------
# NumPy's in-place writers: in place on ndarrays, functional with inplace=False
# ---------------------------------------------------------------------------------
def _inplace(name: str, inplace: bool, a: Any, *others: Any) -> bool:
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


def _cycled(v: Any, n: int, dtype: Any) -> Any:
    """The first ``n`` elements of ``ravel(v)`` repeated cyclically."""
    vf = F.ravel(_cast(v, dtype))
    if vf.shape[0] == 0:
        if n:
            raise ValueError("Cannot insert from an empty array!")
        return vf
    return P.gather(vf, np.arange(n) % vf.shape[0])


def put(a: ArrayLike, ind: ArrayLike, v: ArrayLike, mode: str = "raise", *,
        inplace: bool = True) -> Array | None:
    """Write values at flat indices, ``a.flat[ind] = v``.

    ``v`` is repeated cyclically; the last write wins for repeated indices.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> a = np.zeros(4)
    >>> fnp.put(a, [0, 2], [5., 6.], inplace=False)
    array([5., 0., 6., 0.])
    >>> ftrans.grad(lambda v: fnp.sum(fnp.put(a, [1], v, inplace=False) ** 2))(np.array([3.]))
    array([6.])

    Parameters
    ----------
    a : array_like
        Target array.
    ind : array_like of int
        Flat indices.
    v : array_like
        Values.
    mode : {'raise', 'wrap', 'clip'}, optional
        Out-of-bounds handling.
    inplace : bool, optional
        Modify the NumPy array ``a`` in place and return None;
        ``False`` returns the new array (required for traced values).

    Returns
    -------
    Array or None
        The new array (``inplace=False``), else None.

    Raises
    ------
    IndexError
        Out-of-bounds indices with ``'raise'``.
    ValueError
        An unknown ``mode``, or ``inplace`` not a bool.
    TypeError
        ``inplace=True`` on a value that cannot be modified (not a NumPy array).

    Notes
    -----
    Differentiable in ``a`` and ``v`` with ``inplace=False``.
    """
    if _inplace("put", inplace, a, ind, v):
        np.put(a, ind, v, mode=mode)  # type: ignore[arg-type]  # ndarray: _inplace
        return None
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
    return F.reshape(_update(F.ravel(a), i, _cycled(v, i.shape[0], a.dtype), "set"), tuple(a.shape))


def _mask_of(name: str, a: Any, mask: Any) -> Any:
    """``a`` and the boolean ``mask`` reshaped to it (NumPy: the same size)."""
    a, m = _nd(a), _nd(mask)
    if a.size != m.size:
        raise ValueError(f"{name}: mask and data must be the same size, got {m.size} "
                         f"and {a.size} elements")
    return a, P.reshape(_cast(m, np.dtype(bool)), tuple(a.shape))


def place(arr: ArrayLike, mask: ArrayLike, vals: ArrayLike, *,
          inplace: bool = True) -> Array | None:
    """Write values, in order, where a mask is true.

    The elements of ``arr`` where ``mask`` holds get the first values of ``vals``
    (repeated cyclically).

    Parameters
    ----------
    arr : array_like
        Target array.
    mask : array_like of bool
        Mask of ``arr``'s shape (may be traced).
    vals : array_like
        Values.
    inplace : bool, optional
        Modify the NumPy array in place and return None; ``False``
        returns the new array.

    Returns
    -------
    Array or None
        The new array (``inplace=False``), else None.

    Raises
    ------
    ValueError
        A mask of the wrong shape, or ``inplace`` not a bool.
    TypeError
        ``inplace=True`` on a value that cannot be modified (not a NumPy array).

    Notes
    -----
    Differentiable in ``arr`` and ``vals`` with ``inplace=False``.
    """
    if _inplace("place", inplace, arr, mask, vals):
        np.place(arr, mask, vals)  # type: ignore[arg-type]  # ndarray: _inplace
        return None
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


def putmask(a: ArrayLike, /, mask: ArrayLike, values: ArrayLike, *,
            inplace: bool = True) -> Array | None:
    """Write ``values[n % len(values)]`` at each flat position ``n`` where ``mask`` holds.

    Parameters
    ----------
    a : array_like
        Target array.
    mask : array_like of bool
        Mask of ``a``'s size.
    values : array_like
        Values (repeated cyclically).
    inplace : bool, optional
        Modify the NumPy array in place and return None; ``False``
        returns the new array.

    Returns
    -------
    Array or None
        The new array (``inplace=False``), else None.

    Raises
    ------
    ValueError
        A mask of the wrong size, or ``inplace`` not a bool.
    TypeError
        ``inplace=True`` on a value that cannot be modified (not a NumPy array).

    Notes
    -----
    Differentiable in ``a`` and ``values`` with ``inplace=False``.
    """
    if _inplace("putmask", inplace, a, mask, values):
        np.putmask(a, mask, values)  # type: ignore[arg-type]  # ndarray: _inplace
        return None
    arr, m = _mask_of("putmask", a, mask)
    if _nd(values).size == 0:
        return arr
    return P.where(m, F.reshape(_cycled(values, arr.size, arr.dtype), tuple(arr.shape)), arr)


def fill_diagonal(a: ArrayLike, val: ArrayLike, wrap: bool = False, *,
                  inplace: bool = True) -> Array | None:
    """Write a value (repeated cyclically) on the main diagonal.

    Parameters
    ----------
    a : array_like
        2-D, or N-D with all sides equal.
    val : array_like
        Diagonal values.
    wrap : bool, optional
        Continue the diagonal of a tall matrix every ``M + 1`` rows.
    inplace : bool, optional
        Modify the NumPy array in place and return None; ``False``
        returns the new array.

    Returns
    -------
    Array or None
        The new array (``inplace=False``), else None.

    Raises
    ------
    ValueError
        For fewer than 2 dimensions or unequal sides.

    Notes
    -----
    Differentiable in ``a`` and ``val`` with ``inplace=False``.
    """
    if _inplace("fill_diagonal", inplace, a, val):
        np.fill_diagonal(a, val, wrap)  # type: ignore[arg-type]  # ndarray: _inplace
        return None
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


def copyto(dst: ArrayLike, src: ArrayLike, casting: str = "same_kind",
           where: ArrayLike = True, *, inplace: bool = True) -> Array | None:
    """Copy values from ``src`` into ``dst`` (broadcast) where ``where`` holds.

    Parameters
    ----------
    dst : array_like
        Destination.
    src : array_like
        Source, broadcast to ``dst``'s shape.
    casting : str, optional
        NumPy's casting rule from ``src``'s dtype to ``dst``'s.
    where : array_like of bool, optional
        Where to copy.
    inplace : bool, optional
        Modify the NumPy array in place and return None; ``False``
        returns the new array.

    Returns
    -------
    Array or None
        The new array (``inplace=False``), else None.

    Raises
    ------
    TypeError
        ``src``'s dtype cannot be cast under ``casting``.

    Notes
    -----
    Differentiable in ``dst`` and ``src`` with ``inplace=False``.
    """
    if _inplace("copyto", inplace, dst, src, where):
        np.copyto(dst, src, casting=casting, where=where)  # type: ignore[arg-type]  # ndarray: _inplace
        return None
    d, s = _nd(dst), F._arr(src)
    sdt = np.dtype(type(s)) if isinstance(s, (bool, int, float, complex)) else np.dtype(s.dtype)
    if not isinstance(s, (bool, int, float, complex)) and \
            not np.can_cast(sdt, np.dtype(d.dtype), casting):  # type: ignore[arg-type]  # NumPy checks
        raise TypeError(f"Cannot cast array data from dtype('{sdt}') to dtype('{d.dtype}') "
                        f"according to the rule {casting!r}")
    s = P.broadcast_to(_cast(s, d.dtype), tuple(d.shape))
    if where is True:
        return s
    return P.where(P.broadcast_to(_nd(where), tuple(d.shape)), s, d)
