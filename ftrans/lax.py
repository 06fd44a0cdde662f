"""Structured control flow as primitives: ``cond``, ``switch``, ``while_loop``,
``fori_loop``, ``scan``, ``map`` and ``select`` (JAX's ``jax.lax`` signatures and
semantics).

Python ``if``/``for``/``while`` on a traced value cannot be recorded by ``jit`` (it
raises :class:`~ftrans.core.ir.ConcretizationError`), and a Python loop unrolled by
``grad`` keeps one tape entry per operation per iteration.  These functions make the
branch or the loop *one* primitive whose parameters hold the staged sub-programs
(:class:`~ftrans.core.ir.IR`), traced once on the abstract values (shape, dtype) of
the operands or of the loop carry:

==========  ==========================================  ================================
primitive   operands                                    params
==========  ==========================================  ================================
``cond``    ``index, *closed, *operands``               ``branches`` (tuple of IRs)
``while``   ``*cond_closed, *body_closed, *carry``      ``cond``, ``body``, ``n_cond``,
                                                        ``n_body``
``scan``    ``*consts, *carry, *xs``                    ``body``, ``n_consts``,
                                                        ``n_carry``, ``length``,
                                                        ``reverse``, ``unroll``
==========  ==========================================  ================================

Arguments and results are pytrees (flattened with :mod:`ftrans.core.pytree`).  Traced
values of enclosing transforms that a branch or body *closes over* are lifted by
:func:`~ftrans.core.ir.stage` into explicit leading operands (closure conversion), so
``grad`` with respect to a closed-over weight, or ``vmap`` over it, is exact.

Rules (each binds the same primitives again, so they nest under every transform and
stage as ordinary equations inside ``jit``):

* **impl**: the sub-programs run through ``ftrans.compiler.compile_ir(ir)(*args)``; a
  Python loop drives the compiled body of ``while``/``scan``.
* **JVP**: ``cond`` of the JVP'd branches; ``while`` of the JVP'd body (carry tangents
  joined to a fixed point of which are nonzero); ``scan`` of the JVP'd body.
* **VJP**: ``cond`` of the branches' VJPs (the taken branch's forward part is
  recomputed in the backward pass, like ``checkpoint``).  ``scan``: the body's joint
  forward + VJP program is staged and split by :func:`~ftrans.core.ir.partition`; the
  forward scan also emits the per-iteration *residuals* (stacked along the scan axis),
  and a backward scan runs in the opposite direction over them, carrying the carry's
  cotangent and accumulating the loop-invariant operands' cotangents.  Residuals are
  what reverse mode's tape would save (each rule's primal operands), so a
  ``ftrans.checkpoint``-ed body saves only its inputs per iteration and recomputes the
  rest.  ``while`` has no reverse mode (the trip count is unknown before running, as in
  JAX): it raises ``ValueError`` pointing to ``scan`` and static-bound ``fori_loop``.
* **batching**: an unbatched predicate/index keeps one branch/loop over batched
  operands; a batched ``cond`` index runs every branch and selects per example; a
  batched ``while`` predicate runs until every example is done, freezing finished ones
  with ``select``; ``scan`` batches its body (batch axis after the scan axis).

References: JAX's ``jax.lax`` documentation (control flow operators) for signatures,
semantics and error rules; the partial-evaluation scheme is JAX's
``partial_eval_jaxpr_nounits`` ("You only linearize once", Radul et al., 2022).

>>> import numpy as np, ftrans, ftrans.numpy as fnp
>>> from ftrans import lax
>>> lax.fori_loop(0, 5, lambda i, x: x * 2.0, 1.0)
array(32.)
>>> def rnn(w, xs):
...     h, _ = lax.scan(lambda h, x: (fnp.tanh(w * h + x), None), 0.0, xs)
...     return h
>>> g = ftrans.grad(rnn)(0.5, np.ones(3))
"""
from __future__ import annotations

import numpy as np

from .core import Primitive, ShapedArray, Tracer, zero, is_inexact, set_current_trace
from .core.trace import _ctx, _escaped
from .core.ir import IR, Var, Literal, stage, eval_ir, dce, partition
from .core.pytree import tree_flatten, tree_unflatten
from .compiler import compile_ir
from . import primitives as P
from .primitives._rules import batch_size, move_to_front, move_axis, batched_front
from .transforms.jvp import JVPTrace, JVPTracer
from .transforms.vmap import BatchTrace, BatchTracer, vmap
from .transforms.vjp import vjp
from .transforms._util import zeros_like_leaf
from .transforms.jit import jit_disabled

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "select",
           "cond_p", "while_p", "scan_p"]


# =================================================================================
# helpers: operands, staging user functions, editing programs
# =================================================================================
def _as_operand(x, what):
    """A leaf argument as an array (tracers pass through; Python scalars become arrays)."""
    if isinstance(x, Tracer):
        if not x._trace.active:
            raise _escaped(x)
        return x
    if isinstance(x, (bool, int, float, complex, np.generic)):
        return np.asarray(x)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return x
    raise TypeError(f"{what}: operands must be arrays, Python scalars or pytrees of them, "
                    f"got a leaf of type {type(x).__name__}")


def _aval(x):
    return ShapedArray(tuple(x.shape), x.dtype)


def _aval_str(a):
    return f"{a.dtype.name}{list(a.shape)}"


def _is_python_scalar(x):
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def _backend(args):
    from .kernels import backend_for, cpu
    return "cpu" if backend_for(*args) is cpu else "gpu"


def _check_out_leaf(o, what):
    if isinstance(o, Tracer) or _is_python_scalar(o) or (hasattr(o, "shape")
                                                          and hasattr(o, "dtype")):
        return o
    raise TypeError(f"{what} must return arrays, Python scalars or pytrees of them, got a "
                    f"leaf of type {type(o).__name__}")


def _weak_cast(o, aval):
    """A Python scalar output as an array of ``aval``'s dtype when NumPy's weak-scalar
    rule (NEP 50) keeps that dtype (``1.0`` into a float32 carry); else unchanged."""
    if _is_python_scalar(o) and aval.shape == () and np.result_type(o, aval.dtype) == aval.dtype:
        return np.asarray(o, aval.dtype)
    return o


def _literals_to_consts(ir, dtypes=None):
    """``ir`` with its Python-scalar (Literal) outputs turned into constant arrays (of
    ``dtypes[k]`` when given), so that every output of a control-flow primitive is an
    array."""
    if not any(type(v) is Literal for v in ir.out_vars):
        return ir
    cvars, consts, outs = list(ir.const_vars), list(ir.consts), []
    for k, v in enumerate(ir.out_vars):
        if type(v) is Literal:
            arr = np.asarray(v.val, None if dtypes is None else dtypes[k])
            nv = Var(ShapedArray(arr.shape, arr.dtype))
            cvars.append(nv)
            consts.append(arr)
            v = nv
        outs.append(v)
    return IR(ir.in_vars, cvars, consts, ir.eqns, outs)


def _stage_fun(fun, in_tree, in_avals, what, split=None, cast=None):
    """Stage ``fun`` on pytree arguments with leaves of ``in_avals``.

    ``split(out) -> list of pytrees`` splits the result (scan's ``(carry, y)``); ``cast``
    gives, per output leaf, an aval that Python-scalar outputs are cast to (NEP 50).
    Returns ``(ir, lifted, out_trees, weak)``: ``ir`` may still have Literal outputs
    (``weak[k]``: output ``k`` is a Python scalar).
    """
    trees, weak = [], []

    def flat(*xs):
        out = fun(*tree_unflatten(in_tree, list(xs)))
        parts = [out] if split is None else split(out)
        leaves = []
        for part in parts:
            l, t = tree_flatten(part)
            trees.append(t)
            leaves.extend(_check_out_leaf(o, what) for o in l)
        if cast is not None:  # (a carry of the wrong structure is reported by the caller)
            leaves = [_weak_cast(o, a) for o, a in zip(leaves, cast)] + leaves[len(cast):]
        weak.extend(_is_python_scalar(o) for o in leaves)
        return leaves

    ir, lifted = stage(flat, in_avals, name=what)
    return ir, lifted, trees, weak


def _reorder(ir, in_perm, out_perm):
    """The same program with its inputs and outputs permuted."""
    return IR([ir.in_vars[i] for i in in_perm], ir.const_vars, ir.consts, ir.eqns,
              [ir.out_vars[j] for j in out_perm])


def _with_inputs(ir, lifted, all_lifted, extra_avals=()):
    """``ir`` (whose inputs are ``lifted`` then the rest) taking ``all_lifted`` (a superset,
    unused ones ignored) first, then its own inputs, then unused inputs of
    ``extra_avals``."""
    pos = {id(t): k for k, t in enumerate(lifted)}
    head = [ir.in_vars[pos[id(t)]] if id(t) in pos else Var(_aval(t)) for t in all_lifted]
    tail = [Var(a) for a in extra_avals]
    return IR(head + ir.in_vars[len(lifted):] + tail, ir.const_vars, ir.consts, ir.eqns,
              ir.out_vars)


def _cached(ir, key, build):
    hit = ir.cache.get(key)
    if hit is None:
        hit = ir.cache[key] = build()
    return hit


def _arr(x):
    return np.asarray(x) if _is_python_scalar(x) or isinstance(x, np.generic) else x


def _arrays(tree):
    """The pytree with its Python/NumPy scalar leaves as 0-d arrays (eager results)."""
    leaves, t = tree_flatten(tree)
    return tree_unflatten(t, [_arr(l) for l in leaves])


def _zeros(aval):
    return np.zeros(aval.shape, aval.dtype)


# ---------------------------------------------------------------------------------
# program transformations: JVP, batching, joint forward + VJP (each staged once and
# cached on the program)
# ---------------------------------------------------------------------------------
def _jvp_ir(ir, nz_in, inst):
    """Forward mode of a program.

    Returns ``(jir, nz_out)``: ``jir`` takes the primal inputs then the tangents of the
    inputs marked in ``nz_in``, and returns the primal outputs then the tangents of the
    outputs marked in ``nz_out`` (nonzero, or forced by ``inst``; never for integer
    outputs).
    """
    def build():
        n = len(ir.in_vars)
        nz_out = []

        def fn(*xs):
            ts = iter(xs[n:])
            trace = JVPTrace(_ctx.trace, "jvp")
            args = [JVPTracer(trace, p, next(ts)) if z else p for p, z in zip(xs[:n], nz_in)]
            try:
                with set_current_trace(trace):
                    outs = eval_ir(ir, *args)
            finally:
                trace.finish()
            p_out, t_out = [], []
            for k, (o, a) in enumerate(zip(outs, ir.out_avals)):
                p, t = (o.primal, o.tangent) if isinstance(o, JVPTracer) and \
                    o._trace is trace else (o, zero)
                p_out.append(_arr(p))
                if not is_inexact(a.dtype):
                    t = zero
                elif t is zero and inst[k]:
                    t = _zeros(a)
                nz_out.append(t is not zero)
                if t is not zero:
                    t_out.append(t)
            return p_out + t_out

        avals = list(ir.in_avals) + [a for a, z in zip(ir.in_avals, nz_in) if z]
        jir, lifted = stage(fn, avals, "jvp")
        assert not lifted
        return jir, tuple(nz_out)
    return _cached(ir, ("jvp", tuple(nz_in), tuple(inst)), build)


def _batch_ir(ir, in_b, size, force):
    """The program vectorized over a leading batch axis of ``size`` on the inputs marked
    in ``in_b``.  Returns ``(bir, out_b)``: outputs marked in ``out_b`` (batched, or
    forced by ``force``) carry the batch axis in front."""
    def build():
        out_b = []

        def fn(*xs):
            trace = BatchTrace(_ctx.trace, "vmap", size)
            args = [BatchTracer(trace, x, 0) if b else x for x, b in zip(xs, in_b)]
            try:
                with set_current_trace(trace):
                    outs = eval_ir(ir, *args)
            finally:
                trace.finish()
            res = []
            for o, f in zip(outs, force):
                if isinstance(o, BatchTracer) and o._trace is trace:
                    res.append(move_to_front(o.val, o.bdim))
                    out_b.append(True)
                elif f:
                    o = _arr(o)
                    res.append(P.broadcast_to(o, (size,) + tuple(o.shape)))
                    out_b.append(True)
                else:
                    res.append(_arr(o))
                    out_b.append(False)
            return res

        avals = [ShapedArray((size,) + a.shape, a.dtype) if b else a
                 for a, b in zip(ir.in_avals, in_b)]
        bir, lifted = stage(fn, avals, "vmap")
        assert not lifted
        return bir, tuple(out_b)
    return _cached(ir, ("batch", tuple(in_b), size, tuple(force)), build)


def _batch_fixpoint(ir, head_b, carry_b, tail_b, size, n_out_extra):
    """Batch a loop body (inputs ``head, carry, tail``; outputs ``carry, extra``) with
    the carry's batched set grown until the body maps it into itself."""
    carry_b = list(carry_b)
    while True:
        bir, out_b = _batch_ir(ir, list(head_b) + carry_b + list(tail_b), size,
                               carry_b + [False] * n_out_extra)
        new = list(out_b[:len(carry_b)])
        if new == carry_b:
            return bir, carry_b, list(out_b[len(carry_b):])
        carry_b = [a or b for a, b in zip(carry_b, new)]


def _vjp_joint(ir, diff_in):
    """The joint forward + reverse program of ``ir``.

    Returns ``(joint, boundary, out_inexact)``: ``joint`` takes ``ir``'s inputs then one
    cotangent per inexact output, and returns ``ir``'s outputs then the cotangents of the
    inputs marked in ``diff_in`` (zeros where none arrives); its equations from index
    ``boundary`` on were recorded by the backward pass.
    """
    def build():
        n = len(ir.in_vars)
        out_inexact = [is_inexact(a.dtype) for a in ir.out_avals]
        idx = [i for i, d in enumerate(diff_in) if d]
        info = {}

        def fn(*xs):
            prim, cts = list(xs[:n]), iter(xs[n:])
            staging = _ctx.trace

            def f(*d):
                full = list(prim)
                for i, v in zip(idx, d):
                    full[i] = v
                return eval_ir(ir, *full)
            outs, pull = vjp(f, *[prim[i] for i in idx])
            info["boundary"] = len(staging.eqns)
            ct = [next(cts) if m else zeros_like_leaf(o) for o, m in zip(outs, out_inexact)]
            in_cts = pull(ct) if idx else ()
            return [_arr(o) for o in outs] + list(in_cts)

        avals = list(ir.in_avals) + [a for a, m in zip(ir.out_avals, out_inexact) if m]
        joint, lifted = stage(fn, avals, "vjp")
        assert not lifted
        return joint, info["boundary"], out_inexact
    return _cached(ir, ("vjp_joint", tuple(diff_in)), build)


def _mismatch(what, k, tree, expected, got, remedy):
    return TypeError(
        f"{what}: leaf {k} of the output (structure {tree}) has type {_aval_str(got)} but "
        f"{_aval_str(expected)} was expected; {remedy}")


# =================================================================================
# cond / switch
# =================================================================================
cond_p = Primitive("cond", multiple_results=True)


@cond_p.def_impl
def _cond_impl(index, *args, branches):
    i = min(max(int(index), 0), len(branches) - 1)
    return tuple(_arr(o) for o in compile_ir(branches[i], _backend(args))(*args))


@cond_p.def_abstract_eval
def _cond_abstract_eval(index, *avals, branches):
    return tuple(ShapedArray(a.shape, a.dtype) for a in branches[0].out_avals)


@cond_p.def_jvp
def _cond_jvp(primals, tangents, *, branches):
    index, args = primals[0], primals[1:]
    nz = [t is not zero for t in tangents[1:]]
    n_out = len(branches[0].out_vars)
    masks = [_jvp_ir(b, nz, [False] * n_out)[1] for b in branches]
    union = [any(m[k] for m in masks) for k in range(n_out)]
    jbranches = tuple(_jvp_ir(b, nz, union)[0] for b in branches)
    outs = cond_p.bind(index, *args, *[t for t in tangents[1:] if t is not zero],
                       branches=jbranches)
    t_it = iter(outs[n_out:])
    return tuple(outs[:n_out]), tuple(next(t_it) if u else zero for u in union)


@cond_p.def_vjp
def _cond_vjp(ct, ans, primals, needs, *, branches):
    index, args = primals[0], primals[1:]
    diff = [bool(need) and is_inexact(a.dtype) for a, need in zip(args, needs[1:])]
    if not any(diff):
        return [None] * len(primals)
    n_out = len(branches[0].out_vars)
    out_inexact = [is_inexact(a.dtype) for a in branches[0].out_avals]
    bwd = tuple(_cached(b, ("cond_bwd", tuple(diff)), lambda b=b: dce(
        _vjp_joint(b, diff)[0], [False] * n_out + [True] * sum(diff))) for b in branches)
    cts = cond_p.bind(index, *args, *[c for c, m in zip(ct, out_inexact) if m], branches=bwd)
    it = iter(cts)
    return [None] + [next(it) if d else None for d in diff]


@cond_p.def_batch
def _cond_batch(vals, dims, *, branches):
    size = batch_size(vals, dims)
    if dims[0] is None:  # one branch per call, applied to batched operands
        args = [v if d is None else move_to_front(v, d) for v, d in zip(vals[1:], dims[1:])]
        in_b = [d is not None for d in dims[1:]]
        n_out = len(branches[0].out_vars)
        masks = [_batch_ir(b, in_b, size, [False] * n_out)[1] for b in branches]
        union = [any(m[k] for m in masks) for k in range(n_out)]
        outs = cond_p.bind(vals[0], *args,
                           branches=tuple(_batch_ir(b, in_b, size, union)[0] for b in branches))
        return outs, [0 if u else None for u in union]

    # a batched index: every branch runs on every example; each example selects its own
    def per_example(i, *xs):
        res = eval_ir(branches[0], *xs)
        for k in range(1, len(branches)):
            res = [P.where(P.eq(i, k), o, r) for o, r in zip(eval_ir(branches[k], *xs), res)]
        return res
    outs = vmap(per_example, in_axes=tuple(dims), axis_size=size)(*vals)
    return tuple(outs), [0] * len(outs)


def _stage_branches(funs, names, operands, what):
    leaves, in_tree = tree_flatten(tuple(operands))
    leaves = [_as_operand(x, what) for x in leaves]
    avals = [_aval(x) for x in leaves]
    staged = [_stage_fun(f, in_tree, avals, f"{what} {n}") for f, n in zip(funs, names)]
    trees = [s[2][0] for s in staged]
    for t, n in zip(trees[1:], names[1:]):
        if t != trees[0]:
            raise TypeError(f"{what}: every branch must return the same pytree structure; "
                            f"{names[0]} returned {trees[0]} but {n} returned {t}")
    # one list of closed-over values, in front of every branch's operands
    all_lifted, seen = [], set()
    for _, lifted, _, _ in staged:
        for t in lifted:
            if id(t) not in seen:
                seen.add(id(t))
                all_lifted.append(t)
    irs = [_with_inputs(ir, lifted, all_lifted) for ir, lifted, _, _ in staged]
    # identical output types (JAX's rule); a Python-scalar output adopts the others' dtype
    dtypes = _join_outputs(irs, [s[3] for s in staged], names, trees[0], what)
    return ([_literals_to_consts(ir, dtypes) for ir in irs], all_lifted, leaves, trees[0])


def _join_outputs(irs, weak, names, tree, what):
    """The dtype of each output (Python-scalar outputs adopt the others'), or TypeError."""
    dtypes = []
    for k in range(len(irs[0].out_vars)):
        strong = [b for b in range(len(irs)) if not weak[b][k]]
        r = strong[0] if strong else 0
        ref = irs[r].out_avals[k]
        for b, ir in enumerate(irs):
            a = ir.out_avals[k]
            if weak[b][k]:
                ok = a.shape == ref.shape and np.result_type(
                    ir.out_vars[k].val, ref.dtype) == ref.dtype
            else:
                ok = a == ref
            if not ok:
                raise TypeError(
                    f"{what}: the branches must return outputs of identical shapes and dtypes "
                    f"(no implicit promotion, as in JAX); output leaf {k} (output structure {tree}) is "
                    f"{_aval_str(ref)} in {names[r]} but {_aval_str(a)} in {names[b]}. "
                    + ("Cast one of them (e.g. with .astype(...)) so that they agree."
                       if a.shape == ref.shape else
                       "Make the shapes agree (e.g. with fnp.broadcast_to or a reshape)."))
        dtypes.append(ref.dtype)
    return dtypes


def switch(index, branches, *operands):
    """Apply ``branches[index](*operands)`` (JAX's ``lax.switch``).

    Parameters
    ----------
    index : integer scalar (array, tracer or Python int)
        Clamped to ``[0, len(branches) - 1]`` as in JAX, so out-of-range values pick
        the first or the last branch.
    branches : sequence of callables
        Each takes ``*operands`` and returns a pytree; all branches must return the same
        structure with identical shapes and dtypes (Python scalars adopt the dtype of
        the other branches).
    *operands : pytrees of arrays or Python scalars

    Returns
    -------
    pytree
        The chosen branch's output.  Every branch is traced once, on abstract values.

    Raises
    ------
    TypeError
        A non-scalar or non-integer index, an empty or non-callable ``branches``, or
        branch outputs that differ in structure, shape or dtype.
    ValueError
        Under ``vmap`` with a batched index, nothing: every branch runs on every example
        and each example selects its own (a NaN in an unselected branch can then reach a
        gradient; use the double-``where`` idiom of :mod:`ftrans.primitives.select`).
    """
    branches = tuple(branches) if isinstance(branches, (list, tuple)) else branches
    if not isinstance(branches, tuple) or not branches or not all(callable(b)
                                                                   for b in branches):
        raise TypeError(f"switch: branches must be a non-empty sequence of callables, got "
                        f"{branches!r}")
    index = _as_operand(index, "switch")
    if tuple(index.shape) != () or index.dtype.kind not in "iub":
        raise TypeError(f"switch: the index must be an integer scalar, got an array of dtype "
                        f"{index.dtype} and shape {tuple(index.shape)}")
    n = len(branches)
    if jit_disabled() and not isinstance(index, Tracer):  # eager: Python control flow
        return _arrays(branches[min(max(int(index), 0), n - 1)](*operands))
    if isinstance(index, Tracer):
        index = P.convert_element_type(P.minimum(P.maximum(index, 0), n - 1), np.dtype("int32"))
    else:
        index = np.asarray(min(max(int(index), 0), n - 1), np.int32)
    return _cond(index, branches, [f"branch {i}" for i in range(n)], operands, "switch")


def cond(pred, true_fun, false_fun, *operands):
    """``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)`` (JAX's
    ``lax.cond``), as one differentiable, batchable, stageable primitive.

    Parameters
    ----------
    pred : scalar (bool or number; nonzero is true)
    true_fun, false_fun : callables
        Take ``*operands``; must return the same pytree structure with identical shapes
        and dtypes.  Both are traced (on abstract values); only one runs.
    *operands : pytrees of arrays or Python scalars

    Returns
    -------
    pytree
        The selected function's output.

    Raises
    ------
    TypeError
        A non-scalar ``pred`` (use ``fnp.where`` for an elementwise choice), a
        non-callable branch, or outputs that differ in structure, shape or dtype.

    >>> import ftrans.numpy as fnp
    >>> cond(True, lambda x: x + 1.0, lambda x: x - 1.0, fnp.ones(2))
    array([2., 2.])
    """
    if not (callable(true_fun) and callable(false_fun)):
        raise TypeError("cond(pred, true_fun, false_fun, *operands): true_fun and false_fun "
                        f"must be callables, got {type(true_fun).__name__} and "
                        f"{type(false_fun).__name__}")
    pred = _as_operand(pred, "cond")
    if tuple(pred.shape) != ():
        raise TypeError(f"cond: the predicate must be a scalar (shape ()), got shape "
                        f"{tuple(pred.shape)}; use fnp.where for an elementwise choice, or "
                        "reduce the predicate (e.g. fnp.all / fnp.any)")
    if pred.dtype.kind not in "biuf":
        raise TypeError(f"cond: the predicate must be a boolean or real number, got dtype "
                        f"{pred.dtype}")
    if jit_disabled() and not isinstance(pred, Tracer):  # eager: Python control flow
        return _arrays(true_fun(*operands) if bool(pred) else false_fun(*operands))
    if isinstance(pred, Tracer):
        index = P.convert_element_type(P.ne(pred, 0) if pred.dtype.kind != "b" else pred,
                                       np.dtype("int32"))
    else:
        index = np.asarray(int(bool(pred)), np.int32)
    return _cond(index, (false_fun, true_fun), ["false_fun", "true_fun"], operands, "cond")


def _cond(index, funs, names, operands, what):
    irs, lifted, leaves, out_tree = _stage_branches(funs, names, operands, what)
    outs = cond_p.bind(index, *lifted, *leaves, branches=tuple(irs))
    return tree_unflatten(out_tree, list(outs))


# =================================================================================
# while_loop / fori_loop
# =================================================================================
while_p = Primitive("while", multiple_results=True)


@while_p.def_impl
def _while_impl(*args, cond, body, n_cond, n_body):
    cc, bc = args[:n_cond], args[n_cond:n_cond + n_body]
    carry = list(args[n_cond + n_body:])
    backend = _backend(args)
    pred, step = compile_ir(cond, backend), compile_ir(body, backend)
    while bool(pred(*cc, *carry)[0]):
        carry = step(*bc, *carry)
    return tuple(_arr(c) for c in carry)


@while_p.def_abstract_eval
def _while_abstract_eval(*avals, cond, body, n_cond, n_body):
    return tuple(ShapedArray(a.shape, a.dtype) for a in body.in_avals[n_body:])


@while_p.def_jvp
def _while_jvp(primals, tangents, *, cond, body, n_cond, n_body):
    nc, nb = n_cond, n_body
    cc, bc, carry = primals[:nc], primals[nc:nc + nb], primals[nc + nb:]
    bt = tangents[nc:nc + nb]
    b_nz = [t is not zero for t in bt]
    h_nz = [t is not zero for t in tangents[nc + nb:]]
    while True:  # the carry's nonzero tangents, to a fixed point
        jb, out_nz = _jvp_ir(body, b_nz + h_nz, h_nz)
        if list(out_nz) == h_nz:
            break
        h_nz = [a or b for a, b in zip(h_nz, out_nz)]
    nh, kb, kh = len(carry), sum(b_nz), sum(h_nz)
    # jb: (bc, carry, bc_t, carry_t) -> (carry, carry_t); the loop wants consts first
    jb = _cached(jb, ("while_order",), lambda: _reorder(
        jb, list(range(nb)) + list(range(nb + nh, nb + nh + kb)) + list(range(nb, nb + nh))
        + list(range(nb + nh + kb, nb + nh + kb + kh)), range(nh + kh)))
    t_avals = [a for a, z in zip(body.in_avals[nb:], h_nz) if z]
    jc = _cached(cond, ("while_jvp_cond", tuple(h_nz)),
                 lambda: _with_inputs(cond, [], [], t_avals))
    ht = [_zeros(_aval(p)) if t is zero else t
          for p, t, z in zip(carry, tangents[nc + nb:], h_nz) if z]
    outs = while_p.bind(*cc, *bc, *[t for t in bt if t is not zero], *carry, *ht,
                        cond=jc, body=jb, n_cond=nc, n_body=nb + kb)
    it = iter(outs[nh:])
    return tuple(outs[:nh]), tuple(next(it) if z else zero for z in h_nz)


_WHILE_VJP = (
    "Reverse-mode differentiation (grad, vjp, jacrev) does not work through "
    "ftrans.lax.while_loop, nor through fori_loop with traced (non-Python-int) bounds: the "
    "number of iterations is only known when the loop has run, so the per-iteration "
    "residuals cannot be laid out (JAX has the same rule). Use ftrans.lax.scan with a fixed "
    "length, or fori_loop with Python-int lower/upper bounds (it lowers to scan); "
    "forward mode (jvp, jacfwd) works through while_loop.")


@while_p.def_vjp
def _while_vjp(ct, ans, primals, needs, **params):
    raise ValueError(_WHILE_VJP)


@while_p.def_batch
def _while_batch(vals, dims, *, cond, body, n_cond, n_body):
    size = batch_size(vals, dims)
    nc, nb = n_cond, n_body
    vals = [v if d is None else move_to_front(v, d) for v, d in zip(vals, dims)]
    b = [d is not None for d in dims]
    c_b, bb_, h_b = b[:nc], b[nc:nc + nb], b[nc + nb:]
    nh = len(h_b)
    bbody, h_b, _ = _batch_fixpoint(body, bb_, h_b, [], size, 0)
    bcond, pred_b = _batch_ir(cond, c_b + h_b, size, [False])
    if pred_b[0]:  # a batched predicate: run until every example is done
        h_b = [True] * nh
        bbody, _ = _batch_ir(body, bb_ + h_b, size, h_b)
        bcond, _ = _batch_ir(cond, c_b + h_b, size, [False])
    carry = [batched_front(v, 0 if d else None, size) if want else v
             for v, d, want in zip(vals[nc + nb:], b[nc + nb:], h_b)]
    cc, bc = vals[:nc], vals[nc:nc + nb]
    if not pred_b[0]:
        outs = while_p.bind(*cc, *bc, *carry, cond=bcond, body=bbody, n_cond=nc, n_body=nb)
        return outs, [0 if x else None for x in h_b]
    anyc, step = _cached(bbody, ("while_batched_pred", bcond, nc), lambda: _frozen_lanes(
        bcond, bbody, nc, nb, size))
    outs = while_p.bind(*cc, *cc, *bc, *carry, cond=anyc, body=step, n_cond=nc,
                        n_body=nc + nb)
    return outs, [0] * nh


def _frozen_lanes(bcond, bbody, nc, nb, size):
    """For a batched predicate: the loop runs while any example's predicate holds; the
    step applies the body and keeps the old carry of the examples that are done."""
    def any_true(*xs):
        pred = eval_ir(bcond, *xs)[0]
        return [P.gt(P.reduce_max(P.convert_element_type(pred, np.dtype("int32")), (0,)), 0)]

    def step(*xs):
        cc, bc, carry = xs[:nc], xs[nc:nc + nb], xs[nc + nb:]
        pred = eval_ir(bcond, *cc, *carry)[0]
        new = eval_ir(bbody, *bc, *carry)
        return [P.where(P.reshape(pred, (size,) + (1,) * (len(c.shape) - 1)), n, c)
                for n, c in zip(new, carry)]
    anyc = stage(any_true, bcond.in_avals, "vmap")[0]
    step_ir = stage(step, bcond.in_avals[:nc] + bbody.in_avals, "vmap")[0]
    return anyc, step_ir


def _check_carry(what, in_tree, out_tree, in_avals, out_avals):
    if out_tree != in_tree:
        raise TypeError(f"{what} must return a value with the structure of the loop carry: "
                        f"the input carry is {in_tree} but the output is {out_tree}")
    for k, (a, b) in enumerate(zip(in_avals, out_avals)):
        if a != b:
            raise _mismatch(what, k, out_tree, a, b,
                            "the carry's output and input must have identical shapes and "
                            "dtypes (as in JAX). " + (
                                "Cast the output (e.g. with .astype(...)) or change the "
                                "initial value so that the dtypes agree." if a.shape == b.shape
                                else "A loop carry cannot change shape; keep growing data in "
                                "a preallocated array, or return it as scan's ys."))


def while_loop(cond_fun, body_fun, init_val):
    """``val = init_val; while cond_fun(val): val = body_fun(val)`` (JAX's
    ``lax.while_loop``), as one primitive.

    Parameters
    ----------
    cond_fun : callable
        ``carry -> bool scalar``.
    body_fun : callable
        ``carry -> carry`` with the structure, shapes and dtypes of ``init_val``
        (Python-scalar outputs adopt the carry's dtype when NumPy's rules allow).
    init_val : pytree of arrays or Python scalars

    Returns
    -------
    pytree
        The final carry.

    Raises
    ------
    TypeError
        ``cond_fun`` not returning a boolean scalar, or ``body_fun`` changing the carry's
        structure, shapes or dtypes.
    ValueError
        When differentiated in reverse mode (see the module docstring); forward mode and
        ``vmap`` work (a batched predicate runs until every example is done).

    >>> while_loop(lambda x: x < 10, lambda x: x * 2, 1)
    array(16)
    """
    if not (callable(cond_fun) and callable(body_fun)):
        raise TypeError("while_loop(cond_fun, body_fun, init_val): cond_fun and body_fun must "
                        "be callables")
    if jit_disabled():  # eager: a Python loop, while the predicate is concrete
        val = init_val
        pred = cond_fun(val)
        while not isinstance(pred, Tracer) and bool(pred):
            val = body_fun(val)
            pred = cond_fun(val)
        if not isinstance(pred, Tracer):
            return _arrays(val)
        init_val = val  # a traced predicate (e.g. under vmap): the primitive goes on
    leaves, tree = tree_flatten(init_val)
    leaves = [_as_operand(x, "while_loop") for x in leaves]
    avals = [_aval(x) for x in leaves]
    arg_tree = tree_flatten((init_val,))[1]  # the functions take the carry as one argument
    cir, c_lifted, c_trees, _ = _stage_fun(cond_fun, arg_tree, avals, "while_loop cond_fun")
    cir = _literals_to_consts(cir)
    oa = cir.out_avals
    if len(oa) != 1 or oa[0].shape != () or oa[0].dtype != np.bool_:
        raise TypeError(f"while_loop: cond_fun must return a boolean scalar, got "
                        f"{c_trees[0]} of types {[_aval_str(a) for a in oa]}; compare "
                        "explicitly (e.g. x < n) or reduce (e.g. fnp.any)")
    bir, b_lifted, b_trees, _ = _stage_fun(body_fun, arg_tree, avals, "while_loop body_fun",
                                           cast=avals)
    bir = _literals_to_consts(bir)
    _check_carry("while_loop body_fun", tree, b_trees[0], avals, bir.out_avals)
    outs = while_p.bind(*c_lifted, *b_lifted, *leaves, cond=cir, body=bir,
                        n_cond=len(c_lifted), n_body=len(b_lifted))
    return tree_unflatten(tree, list(outs))


def _static_int(x):
    if isinstance(x, Tracer):
        return None
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        return int(x)
    if isinstance(x, np.ndarray) and x.shape == () and x.dtype.kind in "iu":
        return int(x)
    return None


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    """``val = init_val; for i in range(lower, upper): val = body_fun(i, val)`` (JAX's
    ``lax.fori_loop``).

    With concrete integer bounds (Python or NumPy ints) the loop lowers to :func:`scan`
    and is differentiable in both modes; with traced bounds (inside ``jit`` or ``vmap``
    over them) it lowers to :func:`while_loop` (forward mode only).

    Parameters
    ----------
    lower, upper : integer scalars
    body_fun : callable
        ``(i, carry) -> carry``; ``i`` is an integer scalar of the bounds' dtype.
    init_val : pytree
    unroll : int or bool, optional
        Passed to :func:`scan` for static bounds.

    Returns
    -------
    pytree
        The final carry (``init_val`` itself when ``upper <= lower``).

    Raises
    ------
    TypeError
        Non-integer bounds, or a body changing the carry's structure/shapes/dtypes.
    """
    lo, hi = _static_int(lower), _static_int(upper)
    for name, v in (("lower", lower), ("upper", upper)):
        d = np.asarray(v).dtype if not isinstance(v, Tracer) else v.dtype
        if d.kind not in "iu" or isinstance(v, bool) or tuple(np.shape(v) if not isinstance(
                v, Tracer) else v.shape) != ():
            raise TypeError(f"fori_loop: {name} must be an integer scalar, got {v!r}")
    dt = np.result_type(*[v.dtype if isinstance(v, Tracer) else np.asarray(v).dtype
                          for v in (lower, upper)])
    if lo is not None and hi is not None:
        def step(carry, _):
            i, x = carry
            return (i + 1, body_fun(i, x)), None
        (_, out), _ = _scan(step, (np.asarray(lo, dt), init_val), None, max(hi - lo, 0),
                            False, 1 if unroll is None else unroll, "fori_loop body_fun")
        return out
    lower = P.convert_element_type(lower, dt) if isinstance(lower, Tracer) else np.asarray(
        lower, dt)
    upper = P.convert_element_type(upper, dt) if isinstance(upper, Tracer) else np.asarray(
        upper, dt)
    _, _, out = while_loop(lambda c: c[0] < c[1],
                           lambda c: (c[0] + 1, c[1], body_fun(c[0], c[2])),
                           (lower, upper, init_val))
    return out


# =================================================================================
# scan / map
# =================================================================================
scan_p = Primitive("scan", multiple_results=True)


def _split3(seq, nc, nh):
    return seq[:nc], seq[nc:nc + nh], seq[nc + nh:]


@scan_p.def_impl
def _scan_impl(*args, body, n_consts, n_carry, length, reverse, unroll):
    consts, carry, xs = _split3(args, n_consts, n_carry)
    carry = list(carry)
    run = compile_ir(body, _backend(args))
    from .kernels import backend_for
    xp = backend_for(*args).xp
    ys = [xp.empty((length,) + a.shape, a.dtype) for a in body.out_avals[n_carry:]]
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        out = run(*consts, *carry, *[x[i] for x in xs])
        carry = out[:n_carry]
        for y, o in zip(ys, out[n_carry:]):
            y[i] = o
    return tuple(_arr(c) for c in carry) + tuple(ys)


@scan_p.def_abstract_eval
def _scan_abstract_eval(*avals, body, n_consts, n_carry, length, reverse, unroll):
    oa = body.out_avals
    return tuple(ShapedArray(a.shape, a.dtype) for a in oa[:n_carry]) + tuple(
        ShapedArray((length,) + a.shape, a.dtype) for a in oa[n_carry:])


@scan_p.def_jvp
def _scan_jvp(primals, tangents, *, body, n_consts, n_carry, length, reverse, unroll):
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

    def order():  # (c, h, x, ct, ht, xt) -> (h, y, ht, yt) to (c, ct, h, ht, x, xt) -> ...
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
    ht = [_zeros(_aval(p)) if t is zero else t for p, t, z in zip(h, ht, h_nz) if z]
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

    __slots__ = ("fwd", "bwd", "const_res", "xs_res", "n_stacked", "h_idx", "acc_idx",
                 "x_idx", "out_inexact")


def _scan_vjp_plan(body, nc, nh):
    """Split the body's joint forward + VJP program into a forward body that also emits
    residuals and a backward body that consumes them.

    The backward-phase equations are forced to the backward side (recomputed from
    residuals there), so the residuals are what the tape of reverse mode saves.
    Residuals that are loop-invariant operands (``consts``) are passed to the backward
    scan once; residuals that are slices of ``xs`` are read from ``xs`` again; all others
    are stacked along the scan axis by the forward scan.
    """
    def build():
        nin, nout = len(body.in_vars), len(body.out_vars)
        diff = [is_inexact(a.dtype) for a in body.in_avals]
        joint, boundary, out_inexact = _vjp_joint(body, diff)
        n_ct = sum(out_inexact)
        known, unknown, out_unknown, nres = partition(
            joint, [False] * nin + [True] * n_ct, force_unknown=range(boundary,
                                                                       len(joint.eqns)))
        assert not any(out_unknown[:nout])
        diff_idx = [i for i, d in enumerate(diff) if d]
        ct_unknown = dict(zip(diff_idx, out_unknown[nout:]))
        res_vars = known.out_vars[len(known.out_vars) - nres:]
        pos = {v: i for i, v in enumerate(known.in_vars)}
        kinds, stacked = [], []
        for r in res_vars:
            j = pos.get(r)
            if j is not None and j < nc:
                kinds.append(("const", j))
            elif j is not None and j >= nc + nh:
                kinds.append(("xs", j - nc - nh))
            else:
                kinds.append(("stack", len(stacked)))
                stacked.append(r)
        plan = _ScanVJPPlan()
        plan.out_inexact = out_inexact
        plan.fwd = dce(IR(known.in_vars, known.const_vars, known.consts, known.eqns,
                          known.out_vars[:nout] + stacked))
        plan.n_stacked = len(stacked)
        plan.const_res = [j for k, j in kinds if k == "const"]
        plan.xs_res = [j for k, j in kinds if k == "xs"]
        plan.h_idx = [i for i in range(nc, nc + nh) if diff[i]]
        plan.acc_idx = [i for i in range(nc) if diff[i] and ct_unknown[i]]
        plan.x_idx = [i for i in range(nc + nh, nin) if diff[i] and ct_unknown[i]]
        ia, oa = body.in_avals, body.out_avals
        y_ct_avals = [a for a, m in zip(oa[nh:], out_inexact[nh:]) if m]
        avals = ([ia[j] for j in plan.const_res] + [ia[i] for i in plan.h_idx]
                 + [ia[i] for i in plan.acc_idx] + [r.aval for r in stacked]
                 + [ia[nc + nh + j] for j in plan.xs_res] + y_ct_avals)
        n1, n2 = len(plan.const_res), len(plan.h_idx)
        n3, n4 = len(plan.acc_idx), len(stacked)
        n5 = len(plan.xs_res)

        def bwd(*a):
            cres, ct_h, acc = a[:n1], a[n1:n1 + n2], a[n1 + n2:n1 + n2 + n3]
            sres = a[n1 + n2 + n3:n1 + n2 + n3 + n4]
            xres, ct_y = a[n1 + n2 + n3 + n4:n1 + n2 + n3 + n4 + n5], a[n1 + n2 + n3 + n4 + n5:]
            it = {"const": iter(cres), "xs": iter(xres), "stack": iter(sres)}
            res = [next(it[k]) for k, _ in kinds]
            u = iter(eval_ir(unknown, *res, *ct_h, *ct_y))
            ct = {i: next(u) for i in diff_idx if ct_unknown[i]}
            return ([ct[i] if i in ct else _zeros(ia[i]) for i in plan.h_idx]
                    + [P.add(s, ct[i]) for s, i in zip(acc, plan.acc_idx)]
                    + [ct[i] for i in plan.x_idx])
        plan.bwd = stage(bwd, avals, "vjp")[0]
        return plan
    return _cached(body, ("scan_vjp", nc, nh), build)


def _scan_fwd(*primals, body, n_consts, n_carry, length, reverse, unroll):
    plan = _scan_vjp_plan(body, n_consts, n_carry)
    consts, _, xs = _split3(primals, n_consts, n_carry)
    outs = scan_p.bind(*primals, body=plan.fwd, n_consts=n_consts, n_carry=n_carry,
                       length=length, reverse=reverse, unroll=unroll)
    nout = len(body.out_vars)
    return tuple(outs[:nout]), (tuple(consts), tuple(xs), tuple(outs[nout:]))


scan_p.vjp_fwd = _scan_fwd


@scan_p.def_vjp
def _scan_vjp(ct, ans, residuals, needs, *, body, n_consts, n_carry, length, reverse,
              unroll):
    plan = _scan_vjp_plan(body, n_consts, n_carry)
    consts, xs, stacked = residuals
    nc, nh = n_consts, n_carry
    oi = plan.out_inexact
    ct_h = [c for c, m in zip(ct[:nh], oi[:nh]) if m]
    ct_y = [c for c, m in zip(ct[nh:], oi[nh:]) if m]
    acc = [_zeros(_aval(consts[i])) for i in plan.acc_idx]
    cres = [consts[j] for j in plan.const_res]
    outs = scan_p.bind(*cres, *ct_h, *acc, *stacked, *[xs[j] for j in plan.xs_res], *ct_y,
                       body=plan.bwd, n_consts=len(cres), n_carry=len(ct_h) + len(acc),
                       length=length, reverse=not reverse, unroll=unroll)
    res = [None] * len(needs)
    for i, g in zip(plan.h_idx + plan.acc_idx + plan.x_idx, outs):
        if needs[i]:
            res[i] = g
    return res


@scan_p.def_batch
def _scan_batch(vals, dims, *, body, n_consts, n_carry, length, reverse, unroll):
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


def _scan(f, init, xs, length, reverse, unroll, what, eager=True):
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
                             "0-d array")
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

    def split(out):
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


def _scan_eager(f, carry, xs, x_leaves, x_tree, length, reverse):
    """Under ``disable_jit``: the Python loop of scan's definition."""
    ys = [None] * length
    for i in (range(length - 1, -1, -1) if reverse else range(length)):
        x = tree_unflatten(x_tree, [v[i] for v in x_leaves])
        carry, ys[i] = f(carry, x)
    if length == 0:  # the output structure needs one (abstract) call of f
        return _arrays(carry), _scan(f, carry, xs, 0, reverse, 1, "scan body f", eager=False)[1]
    leaves = [tree_flatten(y) for y in ys]
    stacked = [P.concatenate([P.expand_dims(_arr(l[0][k]), (0,)) for l in leaves], 0)
               for k in range(len(leaves[0][0]))]
    return _arrays(carry), tree_unflatten(leaves[0][1], stacked)


def scan(f, init, xs=None, length=None, reverse=False, unroll=1):
    """Scan ``f`` over the leading axis of ``xs`` carrying state (JAX's ``lax.scan``)::

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
    init : pytree
    xs : pytree of arrays with a common leading axis, or None
    length : int, optional
        The number of iterations; required when ``xs`` is None.
    reverse : bool
        Scan from the end (``ys`` keep their positions).
    unroll : int or bool
        Accepted for JAX compatibility and passed to the compiler; the eager loop runs
        one iteration per step.

    Returns
    -------
    (carry, ys)
        The final carry; ``ys`` with a leading axis of ``length``.

    Raises
    ------
    TypeError
        ``f`` not returning a pair, or changing the carry's structure, shapes or dtypes.
    ValueError
        ``xs`` leaves with different leading sizes, a 0-d leaf, or no ``xs`` and no
        ``length``.

    Reverse mode keeps one set of residuals per iteration (stacked by the forward scan);
    wrap ``f`` in ``ftrans.checkpoint`` to keep only each iteration's inputs and
    recompute the rest in the backward scan.

    >>> import numpy as np
    >>> scan(lambda c, x: (c * x, c * x), 1.0, np.arange(1.0, 5.0))
    (array(24.), array([ 1.,  2.,  6., 24.]))
    """
    return _scan(f, init, xs, length, reverse, unroll, "scan body f")


def map(f, xs):
    """``stack([f(x) for x in xs])`` over the leading axis of the pytree ``xs``, as a
    :func:`scan` (JAX's ``lax.map``; use ``ftrans.vmap`` to vectorize instead of loop).

    Raises
    ------
    ValueError
        As :func:`scan` for ``xs`` without a common leading axis.
    """
    return _scan(lambda _, x: ((), f(x)), (), xs, None, False, 1, "map f")[1]


# =================================================================================
# select
# =================================================================================
def select(pred, on_true, on_false):
    """Elementwise ``on_true if pred else on_false`` (JAX's ``lax.select``): the
    ``select`` primitive (:func:`ftrans.primitives.where`) with lax's strict rules.

    Parameters
    ----------
    pred : bool array, scalar or of the operands' shape
    on_true, on_false : arrays of identical shape and dtype

    Raises
    ------
    TypeError
        A non-boolean ``pred``, or operands whose shapes/dtypes differ (use ``fnp.where``
        for NumPy broadcasting and promotion).
    """
    pred, a, b = (_as_operand(v, "select") for v in (pred, on_true, on_false))
    if pred.dtype != np.bool_:
        raise TypeError(f"select: pred must be boolean, got dtype {pred.dtype}")
    if tuple(a.shape) != tuple(b.shape) or a.dtype != b.dtype:
        raise TypeError(f"select: on_true and on_false must have identical shapes and dtypes, "
                        f"got {_aval_str(_aval(a))} and {_aval_str(_aval(b))}; use fnp.where "
                        "for broadcasting and promotion")
    if tuple(pred.shape) not in ((), tuple(a.shape)):
        raise TypeError(f"select: pred must be a scalar or have the operands' shape "
                        f"{tuple(a.shape)}, got shape {tuple(pred.shape)}")
    return P.where(pred, a, b)
