"""Tensor contractions of ``ftrans.numpy``: ``einsum``, ``kron``, ``cross``.

``einsum`` accepts everything ``numpy.einsum`` does -- explicit (``'ij,jk->ik'``) and
implicit (``'ij,jk'``: the labels that occur once, in ASCII order) outputs, ellipses
(``'...ij,...jk->...ik'``, broadcast against each other), repeated labels in one
operand (diagonals: ``'ii->i'``, ``'ii'`` is the trace), size-1 broadcasting of a
label, 1..N operands, and the interleaved form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.
It is lowered onto primitives: diagonals by ``gather``, labels used by a single operand
by ``reduce_sum``, and pairwise contractions by ``dot_general`` (batch = labels shared
and still needed, contracted = labels shared and no longer needed), in the order
``numpy.einsum_path`` computes from the shapes (greedy, or ``optimize='optimal'``).
Every step is linear in each operand, so derivatives and ``vmap`` come from the
primitives' rules.
"""
from __future__ import annotations

import builtins
import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..core import result_type
from ..typing import Array, ArrayLike, DTypeLike
from ._funcs import _ndarray, _axis, moveaxis
from ._args import P

__all__ = ["einsum", "kron", "cross"]

_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


# ---------------------------------------------------------------------------------
# parsing
# ---------------------------------------------------------------------------------
def _sublist_to_str(sub: Any) -> str:
    out = []
    for s in sub:
        if s is Ellipsis:
            out.append("...")
        else:
            try:
                k = int(s)
            except TypeError as e:
                raise TypeError("For this input type lists must contain either int or "
                                "Ellipsis") from e
            if not 0 <= k < 52:
                raise ValueError(f"subscript is not within the valid range [0, 52), got {k}")
            out.append(chr(ord("A") + k) if k < 26 else chr(ord("a") + k - 26))
    return "".join(out)


def _split_interleaved(args: Sequence[Any]) -> tuple[str, list[Any]]:
    ops, subs = [], []
    args = list(args)
    while len(args) >= 2:
        ops.append(args.pop(0))
        subs.append(_sublist_to_str(args.pop(0)))
    out = _sublist_to_str(args[0]) if args else None
    return ",".join(subs) + ("" if out is None else "->" + out), ops


def _parse_term(term: str, ndim: int, n_ell: int, where: str) -> Any:
    """Labels of one operand: letters, and ``('...', j)`` for its ellipsis axes, where
    ``j`` counts within the (right-aligned) broadcast ellipsis of ``n_ell`` axes."""
    if term.count("...") > 1 or ("." in term.replace("...", "")):
        raise ValueError(f"einstein sum subscripts string contains a '.' that is not part "
                         f"of an ellipsis ('...') in {where}")
    for c in term.replace("...", ""):
        if c not in _LETTERS:
            raise ValueError(f"invalid subscript {c!r} in einstein sum subscripts string, "
                             "subscripts must be letters")
    if "..." in term:
        left, right = term.split("...")
        k = ndim - len(left) - len(right)
        if k < 0:
            raise ValueError(f"einstein sum subscripts string {term!r} has more subscripts "
                             f"than the {ndim} dimensions of {where}")
        return list(left) + [("...", n_ell - k + i) for i in range(k)] + list(right)
    if len(term) != ndim:
        raise ValueError(f"operand has more dimensions than subscripts given in einstein sum"
                         f" ({where}: {ndim} dimensions, subscripts {term!r})")
    return list(term)


def _parse(subscripts: str, operands: Sequence[Any]) -> Any:
    s = subscripts.replace(" ", "")
    if "->" in s:
        ins, out = s.split("->")
        if "->" in out or "-" in out or ">" in out:
            raise ValueError("einstein sum subscript string does not contain proper '->' "
                             "output specified")
    else:
        if "-" in s or ">" in s:
            raise ValueError("einstein sum subscript string does not contain proper '->' "
                             "output specified")
        ins, out = s, None
    terms = ins.split(",")
    if len(terms) != len(operands):
        more = len(operands) > len(terms)
        raise ValueError(f"{'more' if more else 'fewer'} operands provided to einstein sum "
                         f"function than specified in the subscripts string ({len(operands)} "
                         f"operands, {len(terms)} subscript terms in {subscripts!r})")
    n_ell = 0
    for t, op in zip(terms, operands):
        if "..." in t:
            n_ell = builtins.max(n_ell, op.ndim - (len(t) - 3))
    labels = [_parse_term(t, op.ndim, n_ell, f"operand {i}")
              for i, (t, op) in enumerate(zip(terms, operands))]
    ell = [("...", j) for j in range(n_ell)]
    if out is None:
        counts: dict[Any, int] = {}
        for ls in labels:
            for l in ls:
                if not isinstance(l, tuple):
                    counts[l] = counts.get(l, 0) + 1
        out_labels = [l for l in ell if any(l in ls for ls in labels)] + \
            sorted(l for l, c in counts.items() if c == 1)
    else:
        if out.count("...") > 1 or ("." in out.replace("...", "")):
            raise ValueError("einstein sum subscripts string contains a '.' that is not part "
                             "of an ellipsis ('...') in the output")
        for c in out.replace("...", ""):
            if c not in _LETTERS:
                raise ValueError(f"invalid subscript {c!r} in einstein sum subscripts "
                                 "string, subscripts must be letters")
        seen = set()
        for c in out.replace("...", ""):
            if c in seen:
                raise ValueError(f"einstein sum subscripts string includes output subscript "
                                 f"{c!r} multiple times")
            seen.add(c)
            if not any(c in ls for ls in labels):
                raise ValueError(f"einstein sum subscripts string included output subscript "
                                 f"{c!r} which never appeared in an input")
        used_ell = [l for l in ell if any(l in ls for ls in labels)]
        if "..." in out:
            left, right = out.split("...")
            out_labels = list(left) + used_ell + list(right)
        else:
            if used_ell:
                raise ValueError("output has more dimensions than subscripts given in "
                                 "einstein sum, but no '...' ellipsis provided to broadcast "
                                 "the extra dimensions.")
            out_labels = list(out)
    return labels, out_labels


# ---------------------------------------------------------------------------------
# lowering
# ---------------------------------------------------------------------------------
def _take_diagonals(x: Any, labels: Any) -> Any:
    """Collapse repeated labels of one operand into one axis (its diagonal)."""
    labels = list(labels)
    while True:
        rep = next((l for l in labels if labels.count(l) > 1), None)
        if rep is None:
            return x, labels
        pos = [i for i, l in enumerate(labels) if l == rep]
        sizes = {x.shape[i] for i in pos}
        if len(sizes) != 1:
            name = rep if not isinstance(rep, tuple) else "..."
            raise ValueError(f"dimensions in single operand for collapsing index {name!r} "
                             f"don't match ({' != '.join(str(x.shape[i]) for i in pos)})")
        rest = [i for i in range(len(labels)) if i not in pos]
        x = P.transpose(x, tuple(pos + rest))
        ar = np.arange(x.shape[0])
        x = P.gather(x, tuple([ar] * len(pos)))
        labels = [rep] + [labels[i] for i in rest]


def _sum_labels(x: Any, labels: Any, drop: Any) -> Any:
    axes = tuple(i for i, l in enumerate(labels) if l in drop)
    if not axes:
        return x, labels
    return P.reduce_sum(x, axes), [l for l in labels if l not in drop]


def _contract_pair(a: Any, la: Any, b: Any, lb: Any, keep: Any) -> Any:
    """``dot_general`` of two operands; returns the result and its labels."""
    # labels of one operand only that nothing needs later: sum them first
    a, la = _sum_labels(a, la, {l for l in la if l not in lb and l not in keep})
    b, lb = _sum_labels(b, lb, {l for l in lb if l not in la and l not in keep})
    shared = [l for l in la if l in lb]
    batch = [l for l in shared if l in keep]
    contract = [l for l in shared if l not in keep]
    dn = ((tuple(la.index(l) for l in contract), tuple(lb.index(l) for l in contract)),
          (tuple(la.index(l) for l in batch), tuple(lb.index(l) for l in batch)))
    out = P.dot_general(a, b, dn)
    labels = batch + [l for l in la if l not in shared] + [l for l in lb if l not in shared]
    return out, labels


def _path(ops: Any, labels: Any, out_labels: Any, optimize: Any) -> Any:
    """Pairwise contraction order (list of index tuples) from ``numpy.einsum_path``."""
    n = len(ops)
    if n < 3:
        return [tuple(range(n))]
    if isinstance(optimize, (list, tuple)) and optimize and optimize[0] == "einsum_path":
        return [tuple(p) for p in optimize[1:]]
    names: dict[Any, Any] = {}
    for ls in labels + [out_labels]:
        for l in ls:
            if l not in names:
                names[l] = None
    if len(names) > len(_LETTERS):
        return [(0, 1)] * (n - 1)
    for k, l in enumerate(names):
        names[l] = _LETTERS[k]
    spec = ",".join("".join(names[l] for l in ls) for ls in labels) + "->" + \
        "".join(names[l] for l in out_labels)
    strategy = optimize if optimize in ("greedy", "optimal") else "greedy"
    return list(_cached_path(spec, tuple(tuple(o.shape) for o in ops), strategy))


@functools.lru_cache(maxsize=512)
def _cached_path(spec: Any, shapes: Any, strategy: Any) -> Any:
    """``numpy.einsum_path`` on shapes only (zero-stride dummies), memoized."""
    dummies = [np.broadcast_to(np.zeros((), np.float64), s) for s in shapes]
    try:
        path = np.einsum_path(spec, *dummies, optimize=strategy)[0]
    except Exception:  # pragma: no cover - numpy refuses an unusual spec: left to right
        return ((0, 1),) * (len(shapes) - 1)
    return tuple(tuple(p) for p in path[1:])


def einsum(*operands: Any, out: None = None, optimize: bool | str | list[Any] = False,
           dtype: DTypeLike | None = None, order: str = "K", casting: str = "safe") -> Array:
    """Einstein summation over any subscripts NumPy accepts.

    Parameters
    ----------
    *operands : Any
        ``subscripts, *arrays`` or the interleaved ``a, sublist_a, b,
        sublist_b, ... [, sublist_out]`` form (integer labels 0..51 and ``Ellipsis``).
    out : None
        Not supported (ftrans arrays are immutable values).
    optimize : bool, str or list
        ``'optimal'`` or an ``einsum_path`` result choose the
        pairwise order; anything else uses the greedy order (the result is the same up to
        rounding).
    dtype : dtype_like, optional
        Operands are converted to it first.
    order : str, optional
        Accepted for NumPy compatibility (no memory layout).
    casting : str, optional
        Accepted for NumPy compatibility.

    Returns
    -------
    Array
        The summation's result.

    Raises
    ------
    ValueError
        Malformed subscripts, a subscript count that does not match an operand's
        rank, or sizes that do not broadcast (the shapes are named).
    TypeError
        For ``out=``.

    Notes
    -----
    Differentiable (multilinear: pairwise ``dot_general`` contractions, diagonals and sums).
    """
    if out is not None:
        raise TypeError("ftrans.numpy.einsum: out= is not supported (arrays are immutable "
                        "values); use the returned array")
    if not operands:
        raise ValueError("No input operands")
    if isinstance(operands[0], str):
        subscripts, ops = operands[0], list(operands[1:])
    else:
        subscripts, ops = _split_interleaved(operands)
    ops = [_ndarray(o) for o in ops]
    if dtype is not None:
        ops = [P.convert_element_type(o, np.dtype(dtype)) for o in ops]
    labels, out_labels = _parse(subscripts, ops)
    # sizes of each label: equal, or 1 (broadcast)
    size: dict[Any, int] = {}
    for i, (o, ls) in enumerate(zip(ops, labels)):
        for d, l in zip(o.shape, ls):
            old = size.get(l)
            if old is None or old == 1:
                size[l] = d
            elif d != 1 and d != old:
                shapes = " ".join(str(tuple(x.shape)) for x in ops)
                raise ValueError(f"operands could not be broadcast together with remapped "
                                 f"shapes: label {l if not isinstance(l, tuple) else '...'}"
                                 f" has sizes {old} and {d} (operand shapes {shapes})")
    new_ops, new_labels = [], []
    for o, ls in zip(ops, labels):
        o, ls = _take_diagonals(o, ls)
        squeeze = tuple(i for i, (d, l) in enumerate(zip(o.shape, ls))
                        if d == 1 and size[l] != 1)
        if squeeze:
            o = P.squeeze(o, squeeze)
            ls = [l for i, l in enumerate(ls) if i not in squeeze]
        new_ops.append(o)
        new_labels.append(ls)
    ops, labels = new_ops, new_labels
    # sum labels that only one operand has and the output does not
    for k in range(len(ops)):
        others = set(out_labels)
        for j, ls in enumerate(labels):
            if j != k:
                others.update(ls)
        ops[k], labels[k] = _sum_labels(ops[k], labels[k],
                                        {l for l in labels[k] if l not in others})
    dt = result_type(*ops)
    for step in _path(ops, labels, out_labels, optimize):
        if len(step) == 1:
            continue
        i, j = sorted(step)[:2]
        a, la = ops[i], labels[i]
        b, lb = ops[j], labels[j]
        rest = [k for k in range(len(ops)) if k not in (i, j)]
        keep = set(out_labels)
        for k in rest:
            keep.update(labels[k])
        c, lc = _contract_pair(a, la, b, lb, keep)
        for extra in sorted(step)[2:]:  # a path step naming more than two operands
            c, lc = _contract_pair(c, lc, ops[extra], labels[extra], keep)
        ops = [ops[k] for k in rest if k not in step] + [c]
        labels = [labels[k] for k in rest if k not in step] + [lc]
    while len(ops) > 1:  # paths that stopped early: left to right
        keep = set(out_labels)
        for ls in labels[2:]:
            keep.update(ls)
        c, lc = _contract_pair(ops[0], labels[0], ops[1], labels[1], keep)
        ops, labels = [c] + ops[2:], [lc] + labels[2:]
    x, lx = ops[0], labels[0]
    x, lx = _sum_labels(x, lx, {l for l in lx if l not in out_labels})
    x = P.transpose(x, tuple(lx.index(l) for l in out_labels))
    if x.dtype != dt:
        x = P.convert_element_type(x, dt)
    return x


def kron(a: ArrayLike, b: ArrayLike) -> Array:
    """Kronecker product of two arrays.

    Parameters
    ----------
    a, b : array_like
        Operands (shapes equalized by prepending 1s).

    Returns
    -------
    Array
        Shape ``a.shape * b.shape`` elementwise.

    Notes
    -----
    Differentiable (bilinear: a broadcast product and a reshape).
    """
    a, b = _ndarray(a), _ndarray(b)
    nda, ndb = a.ndim, b.ndim
    if nda == 0 or ndb == 0:
        return P.mul(a, b)
    nd = builtins.max(nda, ndb)
    as_ = (1,) * (nd - nda) + tuple(a.shape)
    bs = (1,) * (nd - ndb) + tuple(b.shape)
    a2 = P.reshape(a, tuple(v for d in as_ for v in (d, 1)))
    b2 = P.reshape(b, tuple(v for d in bs for v in (1, d)))
    return P.reshape(P.mul(a2, b2), tuple(x * y for x, y in zip(as_, bs)))


def cross(a: ArrayLike, b: ArrayLike, axisa: int = -1, axisb: int = -1, axisc: int = -1,
          axis: int | None = None) -> Array:
    """Cross product of 3-element (or 2-element) vectors.

    2-element vectors are deprecated in NumPy 2 (their cross product is the scalar z
    component).

    Parameters
    ----------
    a, b : array_like
        Vector operands, broadcast over the other axes.
    axisa, axisb : int, optional
        The vector axis of ``a`` and ``b``.
    axisc : int, optional
        The vector axis of the result.
    axis : int, optional
        Sets all three axes.

    Returns
    -------
    Array
        The cross products.

    Raises
    ------
    ValueError
        For 0-d operands or vector sizes other than 2 or 3.

    Notes
    -----
    Differentiable (bilinear).
    """
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a, b = _ndarray(a), _ndarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    a = moveaxis(a, _axis(axisa, a.ndim), -1)
    b = moveaxis(b, _axis(axisb, b.ndim), -1)
    na, nb = a.shape[-1], b.shape[-1]
    if na not in (2, 3) or nb not in (2, 3):
        raise ValueError("incompatible dimensions for cross product\n"
                         "(dimension must be 2 or 3)")
    if na == 2 or nb == 2:
        import warnings
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=2)
    dt = result_type(a, b)
    if a.dtype != dt:
        a = P.convert_element_type(a, dt)
    if b.dtype != dt:
        b = P.convert_element_type(b, dt)

    def comp(x: Any, i: int) -> Array:
        return P.gather(x, (Ellipsis, i))
    a0, a1 = comp(a, 0), comp(a, 1)
    b0, b1 = comp(b, 0), comp(b, 1)
    c2 = P.sub(P.mul(a0, b1), P.mul(a1, b0))
    if na == 2 and nb == 2:
        return c2
    if na == 3 and nb == 3:
        a2, b2 = comp(a, 2), comp(b, 2)
        c0 = P.sub(P.mul(a1, b2), P.mul(a2, b1))
        c1 = P.sub(P.mul(a2, b0), P.mul(a0, b2))
    elif na == 2:
        b2 = comp(b, 2)
        c0 = P.mul(a1, b2)
        c1 = P.neg(P.mul(a0, b2))
    else:
        a2 = comp(a, 2)
        c0 = P.neg(P.mul(a2, b1))
        c1 = P.mul(a2, b0)
    shape = np.broadcast_shapes(tuple(c0.shape), tuple(c1.shape), tuple(c2.shape))
    parts = [P.expand_dims(P.broadcast_to(c, shape), (len(shape),)) for c in (c0, c1, c2)]
    out = P.concatenate(parts, len(shape))
    return moveaxis(out, -1, _axis(axisc, out.ndim))
