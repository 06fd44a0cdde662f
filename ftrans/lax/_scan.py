"""``scan`` and ``map`` (the ``scan`` primitive), with the partitioned reverse mode."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Primitive, ShapedArray, zero, is_inexact
from ..core.ir import IR, Literal, Var, stage, eval_ir, dce
from ..core.pytree import tree_flatten, tree_unflatten, tree_map
from ..kernels import backend_for
from .. import primitives as P
from ..typing import PyTree
from ..primitives._rules import batch_size, move_to_front, move_axis, batched_front
from ..transforms.jit import jit_disabled
from ..transforms.vmap import vmap
from ._programs import _Tiered
from ._programs import (_as_operand, _aval, _backend, _literals_to_consts, _stage_fun,
                        _reorder, _cached, _arr, _arrays, _zeros, _zeros_like,
                        _jvp_ir, _batch_fixpoint, _vjp_partition,
                        _check_carry, _static_int)


# =================================================================================
# scan / map
# =================================================================================
scan_p = Primitive("scan", multiple_results=True)
scan_p.lowering = {"kind": "scan"}  # a loop in the compiled code (ftrans.compiler._numba_control)


def _split3(seq: Sequence[Any], nc: int, nh: int
            ) -> tuple[Sequence[Any], Sequence[Any], Sequence[Any]]:
    return seq[:nc], seq[nc:nc + nh], seq[nc + nh:]


@scan_p.def_impl
def _scan_impl(*args: Any, body: IR, n_consts: int, n_carry: int, length: int,
               reverse: bool, unroll: int) -> tuple[Any, ...]:
    consts, carry, xs = _split3(args, n_consts, n_carry)
    carry = list(carry)
    backend = _backend(args)
    run = _Tiered(body, backend)
    xp = backend_for(*args).xp
    steps = range(length - 1, -1, -1) if reverse else range(length)
    if backend is None:
        # other array libraries (Dask: lazy graphs; array-API arrays): per-step outputs
        # stacked at the end, no item assignment into a preallocated array
        per_step: list[list[Any]] = [[None] * length for _ in body.out_avals[n_carry:]]
        for i in steps:
            out = run(*consts, *carry, *[x[i, ...] for x in xs])  # (array API indexing)
            carry = out[:n_carry]
            for y, o in zip(per_step, out[n_carry:]):
                y[i] = o
        ys = [xp.stack(y) if length else xp.empty((0,) + a.shape, a.dtype)
              for y, a in zip(per_step, body.out_avals[n_carry:])]
        return tuple(_arr(c) for c in carry) + tuple(ys)
    ys = [xp.empty((length,) + a.shape, a.dtype) for a in body.out_avals[n_carry:]]
    for i in steps:
        out = run(*consts, *carry, *[x[i] for x in xs])
        carry = out[:n_carry]
        for y, o in zip(ys, out[n_carry:]):
            y[i] = o
    return tuple(_arr(c) for c in carry) + tuple(ys)


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals: ShapedArray, body: IR, n_consts: int, n_carry: int,
                        length: int, reverse: bool, unroll: int) -> tuple[ShapedArray, ...]:
    oa = body.out_avals
    return tuple(ShapedArray(a.shape, a.dtype) for a in oa[:n_carry]) + tuple(
        ShapedArray((length,) + a.shape, a.dtype) for a in oa[n_carry:])


@scan_p.def_jvp
def _scan_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, body: IR, n_consts: int,
              n_carry: int, length: int, reverse: bool, unroll: int
              ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
    nc, nh = n_consts, n_carry
    nx, ny = len(primals) - nc - nh, len(body.out_vars) - nh
    c_nz, h_nz, x_nz = [[t is not zero for t in part] for part in _split3(tangents, nc, nh)]
    while True:  # the carry's nonzero tangents, to a fixed point
        jb, out_nz = _jvp_ir(body, c_nz + h_nz + x_nz, h_nz + [False] * ny)
        if list(out_nz[:nh]) == h_nz:
            break
        h_nz = [a or b for a, b in zip(h_nz, out_nz[:nh])]
    y_nz = list(out_nz[nh:])
    kc, kh, kx, ky = sum(c_nz), sum(h_nz), sum(x_nz), sum(y_nz)
    n = nc + nh + nx

    def order() -> IR:  # (c, h, x, ct, ht, xt) -> (h, y, ht, yt) to (c, ct, h, ht, x, xt) -> ...
        r = range
        ins = (list(r(nc)) + list(r(n, n + kc)) + list(r(nc, nc + nh))
               + list(r(n + kc, n + kc + kh)) + list(r(nc + nh, n))
               + list(r(n + kc + kh, n + kc + kh + kx)))
        outs = (list(r(nh)) + list(r(nh + ny, nh + ny + kh)) + list(r(nh, nh + ny))
                + list(r(nh + ny + kh, nh + ny + kh + ky)))
        return _reorder(jb, ins, outs)
    jb = _cached(jb, ("scan_order", nc, nh), order)
    c, h, x = _split3(primals, nc, nh)
    ct, ht, xt = _split3(tangents, nc, nh)
    ht = [_zeros_like(p) if t is zero else t for p, t, z in zip(h, ht, h_nz) if z]
    outs = scan_p.bind(*c, *[t for t in ct if t is not zero], *h, *ht, *x,
                       *[t for t in xt if t is not zero], body=jb, n_consts=nc + kc,
                       n_carry=nh + kh, length=length, reverse=reverse, unroll=unroll)
    h_out, ht_out = outs[:nh], iter(outs[nh:nh + kh])
    y_out, yt_out = outs[nh + kh:nh + kh + ny], iter(outs[nh + kh + ny:])
    return (tuple(h_out) + tuple(y_out),
            tuple(next(ht_out) if z else zero for z in h_nz)
            + tuple(next(yt_out) if z else zero for z in y_nz))


class _ScanVJPPlan:
    """The forward and backward bodies of a scan's reverse mode (see _scan_vjp_plan)."""

    __slots__ = ("fwd", "kinds", "unknown", "body", "nc", "nh", "diff_idx", "ct_unknown",
                 "const_res", "xs_res", "n_stacked", "stacked_avals", "h_idx", "acc_idx",
                 "x_idx", "out_inexact", "bwds")
    fwd: IR
    kinds: list[tuple[str, int]]
    unknown: IR
    body: IR
    nc: int
    nh: int
    diff_idx: list[int]
    ct_unknown: dict[int, bool]
    const_res: list[int]
    xs_res: list[int]
    n_stacked: int
    stacked_avals: list[ShapedArray]
    h_idx: list[int]
    acc_idx: list[int]
    x_idx: list[int]
    out_inexact: list[bool]
    bwds: dict[tuple[tuple[int, ...], tuple[int, ...]], IR]

    def bwd_for(self, acc_idx: Sequence[int], x_idx: Sequence[int]) -> IR:
        """The backward body computing the cotangents of the carry, of the consts
        ``acc_idx`` (accumulated in the carry) and of the xs ``x_idx`` (stacked): inputs
        ``(const residuals; carry cotangents, accumulators; stacked residuals, xs
        residuals, ys cotangents)``."""
        key = (tuple(acc_idx), tuple(x_idx))
        bwd_ir = self.bwds.get(key)
        if bwd_ir is None:
            bwd_ir = self.bwds[key] = self._stage_bwd(acc_idx, x_idx)
        return bwd_ir

    def _stage_bwd(self, acc_idx: Sequence[int], x_idx: Sequence[int]) -> IR:
        nc, nh, kinds, unknown = self.nc, self.nh, self.kinds, self.unknown
        ia, oa = self.body.in_avals, self.body.out_avals
        y_ct_avals = [a for a, m in zip(oa[nh:], self.out_inexact[nh:]) if m]
        sizes = [len(self.const_res), len(self.h_idx), len(acc_idx), self.n_stacked,
                 len(self.xs_res), len(y_ct_avals)]
        avals = ([ia[j] for j in self.const_res] + [ia[i] for i in self.h_idx]
                 + [ia[i] for i in acc_idx] + list(self.stacked_avals)
                 + [ia[nc + nh + j] for j in self.xs_res] + y_ct_avals)
        bounds = np.cumsum([0] + sizes)
        ct_unknown, diff_idx, h_idx = self.ct_unknown, self.diff_idx, self.h_idx

        def bwd(*a: Any) -> list[Any]:
            cres, ct_h, acc, sres, xres, ct_y = [a[bounds[k]:bounds[k + 1]] for k in range(6)]
            it = {"const": iter(cres), "xs": iter(xres), "stack": iter(sres)}
            res = [next(it[k]) for k, _ in kinds]
            u = iter(eval_ir(unknown, *res, *ct_h, *ct_y))
            ct = {i: next(u) for i in diff_idx if ct_unknown[i]}
            return ([ct[i] if i in ct else _zeros(ia[i]) for i in h_idx]
                    + [P.add(s, ct[i]) for s, i in zip(acc, acc_idx)]
                    + [ct[i] for i in x_idx])
        return dce(stage(bwd, avals, "vjp")[0])  # (drops the unneeded cotangents' work)


def _scan_vjp_plan(body: IR, nc: int, nh: int) -> _ScanVJPPlan:
    """Split the body's joint forward + VJP program into a forward body that also emits
    residuals and backward bodies that consume them.

    The backward-phase equations are forced to the backward side (recomputed from
    residuals there), so the residuals are what the tape of reverse mode saves.
    Residuals that are loop-invariant operands (``consts``) are passed to the backward
    scan once; residuals that are slices of ``xs`` are read from ``xs`` again; all others
    are stacked along the scan axis by the forward scan.
    """
    def build() -> _ScanVJPPlan:
        nin, nout = len(body.in_vars), len(body.out_vars)
        diff = [is_inexact(a.dtype) for a in body.in_avals]
        known, unknown, ct_unknown, nres, out_inexact = _vjp_partition(body, diff)
        plan = _ScanVJPPlan()
        plan.body, plan.nc, plan.nh, plan.unknown = body, nc, nh, unknown
        plan.diff_idx = [i for i, d in enumerate(diff) if d]
        plan.ct_unknown = dict(zip(plan.diff_idx, ct_unknown))
        res_vars = known.out_vars[len(known.out_vars) - nres:]
        pos: dict[Var | Literal, int] = {v: i for i, v in enumerate(known.in_vars)}
        plan.kinds = []
        stacked: list[Any] = []
        for r in res_vars:
            j = pos.get(r)
            if j is not None and j < nc:
                plan.kinds.append(("const", j))
            elif j is not None and j >= nc + nh:
                plan.kinds.append(("xs", j - nc - nh))
            else:
                plan.kinds.append(("stack", len(stacked)))
                stacked.append(r)
        plan.out_inexact = out_inexact
        plan.fwd = dce(IR(known.in_vars, known.const_vars, known.consts, known.eqns,
                          known.out_vars[:nout] + stacked))
        plan.n_stacked = len(stacked)
        plan.stacked_avals = [r.aval for r in stacked]
        plan.const_res = [j for k, j in plan.kinds if k == "const"]
        plan.xs_res = [j for k, j in plan.kinds if k == "xs"]
        plan.h_idx = [i for i in range(nc, nc + nh) if diff[i]]
        plan.acc_idx = [i for i in range(nc) if diff[i] and plan.ct_unknown[i]]
        plan.x_idx = [i for i in range(nc + nh, nin) if diff[i] and plan.ct_unknown[i]]
        plan.bwds = {}
        return plan
    return _cached(body, ("scan_vjp", nc, nh), build)


class _ScanResiduals:
    """What reverse mode keeps of a scan: the operands (``primals``, which ``linearize``
    replays the scan on) and the forward scan's stacked residuals."""

    __slots__ = ("primals", "stacked")

    def __init__(self, primals: tuple[Any, ...], stacked: tuple[Any, ...]) -> None:
        self.primals = primals
        self.stacked = stacked


def _scan_fwd(*primals: Any, body: IR, n_consts: int, n_carry: int, length: int,
              reverse: bool, unroll: int) -> tuple[tuple[Any, ...], _ScanResiduals]:
    plan = _scan_vjp_plan(body, n_consts, n_carry)
    outs = scan_p.bind(*primals, body=plan.fwd, n_consts=n_consts, n_carry=n_carry,
                       length=length, reverse=reverse, unroll=unroll)
    nout = len(body.out_vars)
    return tuple(outs[:nout]), _ScanResiduals(tuple(primals), tuple(outs[nout:]))


scan_p.vjp_fwd = _scan_fwd


@scan_p.def_vjp
def _scan_vjp(ct: Sequence[Any], ans: Any, residuals: _ScanResiduals, needs: Sequence[bool], *,
              body: IR, n_consts: int, n_carry: int, length: int, reverse: bool,
              unroll: int) -> list[Any]:
    plan = _scan_vjp_plan(body, n_consts, n_carry)
    consts, _, xs = _split3(residuals.primals, n_consts, n_carry)
    stacked = residuals.stacked
    nc, nh = n_consts, n_carry
    oi = plan.out_inexact
    ct_h = [c for c, m in zip(ct[:nh], oi[:nh]) if m]
    ct_y = [c for c, m in zip(ct[nh:], oi[nh:]) if m]
    acc_idx = [i for i in plan.acc_idx if needs[i]]
    x_idx = [i for i in plan.x_idx if needs[i]]
    acc = [_zeros_like(consts[i]) for i in acc_idx]
    cres = [consts[j] for j in plan.const_res]
    outs = scan_p.bind(*cres, *ct_h, *acc, *stacked, *[xs[j] for j in plan.xs_res], *ct_y,
                       body=plan.bwd_for(acc_idx, x_idx), n_consts=len(cres),
                       n_carry=len(ct_h) + len(acc), length=length, reverse=not reverse,
                       unroll=unroll)
    res = [None] * len(needs)
    for i, g in zip(plan.h_idx + acc_idx + x_idx, outs):
        if needs[i]:
            res[i] = g
    return res


@scan_p.def_batch
def _scan_batch(vals: Sequence[Any], dims: Sequence[int | None], *, body: IR, n_consts: int,
                n_carry: int, length: int, reverse: bool, unroll: int
                ) -> tuple[Any, list[int | None]]:
    size = batch_size(vals, dims)
    nc, nh = n_consts, n_carry
    ny = len(body.out_vars) - nh
    cd, hd, xd = _split3(dims, nc, nh)
    c, h, x = _split3(vals, nc, nh)
    bbody, h_b, y_b = _batch_fixpoint(body, [d is not None for d in cd],
                                      [d is not None for d in hd],
                                      [d is not None for d in xd], size, ny)
    c = [v if d is None else move_to_front(v, d) for v, d in zip(c, cd)]
    h = [batched_front(v, d, size) if want else v for v, d, want in zip(h, hd, h_b)]
    x = [v if d is None else move_axis(v, d, 1) for v, d in zip(x, xd)]  # (length, B, ...)
    outs = scan_p.bind(*c, *h, *x, body=bbody, n_consts=nc, n_carry=nh, length=length,
                       reverse=reverse, unroll=unroll)
    return outs, [0 if b else None for b in h_b] + [1 if b else None for b in y_b]


def _scan(f: Callable[..., Any], init: PyTree, xs: PyTree, length: int | None, reverse: bool,
          unroll: int | bool, what: str, eager: bool = True) -> tuple[PyTree, PyTree]:
    if not callable(f):
        raise TypeError(f"scan: f must be a callable (carry, x) -> (carry, y), got "
                        f"{type(f).__name__}")
    if isinstance(unroll, bool):
        unroll = 1 if not unroll else -1
    elif not isinstance(unroll, (int, np.integer)) or unroll < 1:
        raise ValueError(f"scan: unroll must be a positive int or a bool, got {unroll!r}")
    h_leaves, h_tree = tree_flatten(init)
    h_leaves = [_as_operand(v, "scan") for v in h_leaves]
    x_leaves, x_tree = tree_flatten(xs)
    x_leaves = [_as_operand(v, "scan") for v in x_leaves]
    for v in x_leaves:
        if len(v.shape) == 0:
            raise ValueError("scan: every leaf of xs needs a leading axis to scan over, got a "
                             "0-d array (a Python list or tuple is a pytree of leaves, not an "
                             "array: pass np.asarray(xs) to scan over its elements)")
    lengths = sorted({int(v.shape[0]) for v in x_leaves})
    if length is not None:
        if _static_int(length) is None or int(length) < 0:
            raise TypeError(f"scan: length must be a non-negative Python int, got {length!r}")
        length = int(length)
        if lengths and lengths != [length]:
            raise ValueError(f"scan: length={length} but the leaves of xs have leading axis "
                             f"sizes {lengths}")
    elif not lengths:
        raise ValueError("scan: with no xs to scan over (xs=None or empty), pass length=")
    elif len(lengths) > 1:
        raise ValueError(f"scan: every leaf of xs must have the same leading axis size, got "
                         f"sizes {[tuple(v.shape) for v in x_leaves]}")
    else:
        length = lengths[0]
    if unroll == -1:
        unroll = max(length, 1)
    if eager and jit_disabled():
        return _scan_eager(f, init, xs, x_leaves, x_tree, length, reverse)
    h_avals = [_aval(v) for v in h_leaves]
    x_avals = [ShapedArray(tuple(v.shape[1:]), v.dtype) for v in x_leaves]
    in_tree = tree_flatten((init, xs))[1]

    def split(out: Any) -> list[PyTree]:
        if not (isinstance(out, (tuple, list)) and len(out) == 2):
            raise TypeError(f"{what} must return a pair (carry, y), got "
                            f"{type(out).__name__}" + (f" of length {len(out)}" if isinstance(
                                out, (tuple, list)) else ""))
        return list(out)
    # Python-scalar carry outputs adopt the carry's dtype (NEP 50); ys keep their own
    ir, lifted, trees, _ = _stage_fun(lambda c, x: f(c, x), in_tree, h_avals + x_avals, what,
                                      split=split, cast=h_avals)
    ir = _literals_to_consts(ir)
    nh = len(h_leaves)
    _check_carry(what, h_tree, trees[0], h_avals, ir.out_avals[:nh])
    outs = scan_p.bind(*lifted, *h_leaves, *x_leaves, body=ir, n_consts=len(lifted),
                       n_carry=nh, length=length, reverse=bool(reverse), unroll=int(unroll))
    return (tree_unflatten(h_tree, list(outs[:nh])),
            tree_unflatten(trees[1], list(outs[nh:])))


def _scan_eager(f: Callable[..., Any], carry: PyTree, xs: PyTree, x_leaves: Sequence[Any],
                x_tree: Any, length: int, reverse: bool) -> tuple[PyTree, PyTree]:
    """Under ``disable_jit``: the Python loop of scan's definition."""
    ys: list[Any] = [None] * length
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        x = tree_unflatten(x_tree, [v[i] for v in x_leaves])
        carry, ys[i] = f(carry, x)
    if length == 0:  # the output structure needs one (abstract) call of f
        return _arrays(carry), _scan(f, carry, xs, 0, reverse, 1, "scan body f", eager=False)[1]
    leaves = [tree_flatten(y) for y in ys]
    stacked = [P.concatenate([P.expand_dims(_arr(l[0][k]), (0,)) for l in leaves], 0)
               for k in range(len(leaves[0][0]))]
    return _arrays(carry), tree_unflatten(leaves[0][1], stacked)


def scan(f: Callable[..., Any], init: PyTree, xs: PyTree = None, length: int | None = None,
         reverse: bool = False, unroll: int | bool = 1) -> tuple[PyTree, PyTree]:
    """Scan ``f`` over the leading axis of ``xs`` carrying state (JAX's ``lax.scan``).

    In Python terms::

        def scan(f, init, xs, length=None):
            carry, ys = init, []
            for x in xs:
                carry, y = f(carry, x)
                ys.append(y)
            return carry, np.stack(ys)

    Parameters
    ----------
    f : callable
        ``(carry, x) -> (carry, y)``; the output carry must have the structure, shapes and
        dtypes of ``init``; ``y`` any pytree of arrays (or None).
    init : PyTree
        The initial carry.
    xs : PyTree, optional
        Arrays with a common leading axis (scanned over), or None.
    length : int, optional
        The number of iterations; required when ``xs`` is None.
    reverse : bool, optional
        Scan from the end (``ys`` keep their positions).
    unroll : int or bool, optional
        Accepted for JAX compatibility and passed to the compiler; the eager loop runs
        one iteration per step.

    Returns
    -------
    carry : PyTree
        The final carry.
    ys : PyTree
        The stacked ``y`` outputs, with a leading axis of ``length``.

    Raises
    ------
    TypeError
        ``f`` not returning a pair, or changing the carry's structure, shapes or dtypes.
    ValueError
        ``xs`` leaves with different leading sizes, a 0-d leaf, or no ``xs`` and no
        ``length``.

    Notes
    -----
    Reverse mode keeps one set of residuals per iteration (stacked by the forward scan);
    wrap ``f`` in ``ftrans.checkpoint`` to keep only each iteration's inputs and
    recompute the rest in the backward scan.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> from ftrans import lax
    >>> lax.scan(lambda c, x: (c * x, c * x), 1.0, np.arange(1.0, 5.0))
    (array(24.), array([ 1.,  2.,  6., 24.]))
    >>> def rnn(w, xs):
    ...     h, _ = lax.scan(lambda h, x: (fnp.tanh(w * h + x), None), 0.0, xs)
    ...     return h
    >>> g = ftrans.grad(rnn)(0.5, np.ones(3))
    """
    return _scan(f, init, xs, length, reverse, unroll, "scan body f")


def map(f: Callable[..., Any], xs: PyTree, *, batch_size: int | None = None) -> PyTree:
    """Map ``f`` over the leading axis of ``xs`` with a loop (JAX's ``lax.map``).

    ``stack([f(x) for x in xs])`` over the leading axis of the pytree ``xs``, as a
    :func:`scan` (use ``ftrans.vmap`` to vectorize instead of loop).

    Parameters
    ----------
    f : callable
        One slice of ``xs`` (a pytree) -> a pytree of arrays.
    xs : PyTree
        Arrays with a common leading axis.
    batch_size : int, optional
        Map ``vmap(f)`` over batches of this many slices (a loop of ``n // batch_size``
        vectorized steps, then one vectorized step over the remainder), trading memory
        for speed as in JAX.

    Returns
    -------
    PyTree
        ``f``'s outputs stacked along a new leading axis.

    Raises
    ------
    ValueError
        As :func:`scan` for ``xs`` without a common leading axis, or a ``batch_size``
        that is not a positive int.
    """
    if batch_size is not None and (_static_int(batch_size) is None or int(batch_size) < 1):
        raise ValueError(f"map: batch_size must be a positive int, got {batch_size!r}")
    leaves, tree = tree_flatten(xs)
    leaves = [_as_operand(v, "map") for v in leaves]
    n = int(leaves[0].shape[0]) if leaves and len(leaves[0].shape) else 0
    if batch_size is None or n == 0:
        return _scan(lambda _, x: ((), f(x)), (), xs, None, False, 1, "map f")[1]
    bs = int(batch_size)
    nb, rest = divmod(n, bs)
    parts = []
    if nb:
        main = [P.reshape(P.gather(v, (slice(0, nb * bs),)) if rest else v,
                          (nb, bs) + tuple(v.shape[1:])) for v in leaves]
        ys = _scan(lambda _, x: ((), vmap(f)(x)), (), tree_unflatten(tree, main), None,
                   False, 1, "map f")[1]
        parts.append(tree_map(lambda y: P.reshape(y, (nb * bs,) + tuple(y.shape[2:])), ys))
    if rest:
        tail = [P.gather(v, (slice(nb * bs, n),)) for v in leaves]
        parts.append(vmap(f)(tree_unflatten(tree, tail)))
    if len(parts) == 1:
        return parts[0]
    return tree_map(lambda a, b: P.concatenate([a, b], 0), parts[0], parts[1])
