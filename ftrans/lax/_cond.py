"""``cond`` / ``switch`` (the ``cond`` primitive: an index and a tuple of branch
programs) and ``select``."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np

from ..core import Primitive, ShapedArray, Tracer, zero, is_inexact
from ..core.ir import IR, Literal, Var, dce, eval_ir
from ..core.pytree import tree_flatten, tree_unflatten
from .. import primitives as P
from ..typing import Array, ArrayLike, PyTree
from ..primitives._rules import batch_size, move_to_front
from ..transforms.vmap import vmap
from ..transforms.jit import jit_disabled
from ._programs import _Tiered
from ._programs import (_as_operand, _aval, _aval_str, _backend, _literals_to_consts,
                        _stage_fun, _with_inputs, _cached, _arr,
                        _arrays, _jvp_ir, _batch_ir, _vjp_partition)


# =================================================================================
# cond / switch
# =================================================================================
cond_p = Primitive("cond", multiple_results=True)
cond_p.lowering = {"kind": "cond"}  # branches in the compiled code (ftrans.compiler._numba_control)


@cond_p.def_impl
def _cond_impl(index: Array, *args: Any, branches: tuple[IR, ...]) -> tuple[Any, ...]:
    i = min(max(int(index), 0), len(branches) - 1)
    return tuple(_arr(o) for o in _Tiered(branches[i], _backend(args))(*args))


@cond_p.def_abstract_eval
def _cond_abstract_eval(index: ShapedArray, *avals: ShapedArray, branches: tuple[IR, ...]
                        ) -> tuple[ShapedArray, ...]:
    return tuple(ShapedArray(a.shape, a.dtype) for a in branches[0].out_avals)


@cond_p.def_jvp
def _cond_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, branches: tuple[IR, ...]
              ) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
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


class _CondVJPPlan:
    """Reverse mode of a ``cond``: per branch, a forward program returning the outputs
    and the residuals, and a backward program from residuals and output cotangents.

    Each branch's joint forward + VJP program is split by ``_vjp_partition``.  The
    residual slots of all branches are concatenated; a branch's forward program fills
    its own slots and returns zeros in the others', its backward program reads its own
    (JAX's scheme for ``cond``): the taken branch runs once, forward, and its
    cotangent program once, backward.
    """

    __slots__ = ("fwd", "bwd", "diff", "out_inexact", "bwds")
    fwd: tuple[IR, ...]
    bwd: tuple[IR, ...]
    diff: list[bool]
    out_inexact: list[bool]
    bwds: dict[tuple[bool, ...], tuple[IR, ...]]

    def bwd_for(self, needs: Sequence[bool]) -> tuple[IR, ...]:
        """The backward branches computing only the cotangents in ``needs``."""
        used = tuple(bool(n) for d, n in zip(self.diff, needs) if d)
        out = self.bwds.get(used)
        if out is None:
            out = self.bwds[used] = tuple(dce(b, used) for b in self.bwd)
        return out


def _cond_vjp_plan(branches: tuple[IR, ...]) -> _CondVJPPlan:
    def build() -> _CondVJPPlan:
        diff = [is_inexact(a.dtype) for a in branches[0].in_avals]
        parts = [_vjp_partition(b, diff) for b in branches]
        nout = len(branches[0].out_vars)
        res_avals = [[v.aval for v in k.out_vars[len(k.out_vars) - nres:]]
                     for k, _, _, nres, _ in parts]
        plan = _CondVJPPlan()
        plan.diff, plan.out_inexact, plan.bwds = diff, parts[0][4], {}
        fwd: list[IR] = []
        bwd: list[IR] = []
        for b, (known, unknown, ct_unknown, nres, _) in enumerate(parts):
            cvars, consts = list(known.const_vars), list(known.consts)
            u_cvars, u_consts = list(unknown.const_vars), list(unknown.consts)

            def zero_var(aval: ShapedArray, cv: list[Var], cs: list[Any]) -> Var:
                v = Var(ShapedArray(aval.shape, aval.dtype))
                cv.append(v)
                cs.append(np.zeros(aval.shape, aval.dtype))
                return v
            slots: list[Any] = []
            ins: list[Any] = []
            for b2, avals in enumerate(res_avals):
                if b2 == b:
                    slots += known.out_vars[len(known.out_vars) - nres:]
                    ins += unknown.in_vars[:nres]
                else:
                    slots += [zero_var(a, cvars, consts) for a in avals]
                    ins += [Var(a) for a in avals]
            fwd.append(IR(known.in_vars, cvars, consts, known.eqns,
                          known.out_vars[:nout] + slots))
            outs: list[Any] = []
            u = iter(unknown.out_vars)
            for i, unk in zip([i for i, d in enumerate(diff) if d], ct_unknown):
                outs.append(next(u) if unk else zero_var(branches[b].in_avals[i], u_cvars,
                                                         u_consts))
            bwd.append(IR(ins + unknown.in_vars[nres:], u_cvars, u_consts, unknown.eqns, outs))
        plan.fwd, plan.bwd = tuple(fwd), tuple(bwd)
        return plan
    return _cached(branches[0], ("cond_vjp", branches[1:]), build)


class _CondResiduals:
    """What reverse mode keeps of a ``cond``: its operands (the index is needed; the rest
    let ``linearize`` replay the ``cond``) and the residual slots."""

    __slots__ = ("primals", "res")

    def __init__(self, primals: tuple[Any, ...], res: tuple[Any, ...]) -> None:
        self.primals = primals
        self.res = res


def _cond_fwd(index: Any, *args: Any, branches: tuple[IR, ...]
              ) -> tuple[tuple[Any, ...], _CondResiduals]:
    plan = _cond_vjp_plan(branches)
    outs = cond_p.bind(index, *args, branches=plan.fwd)
    nout = len(branches[0].out_vars)
    return tuple(outs[:nout]), _CondResiduals((index,) + args, tuple(outs[nout:]))


cond_p.vjp_fwd = _cond_fwd


@cond_p.def_vjp
def _cond_vjp(ct: Sequence[Any], ans: Any, residuals: _CondResiduals, needs: Sequence[bool], *,
              branches: tuple[IR, ...]) -> list[Any]:
    plan = _cond_vjp_plan(branches)
    needs = needs[1:]
    if not any(n and d for n, d in zip(needs, plan.diff)):
        return [None] * (len(needs) + 1)
    cts = cond_p.bind(residuals.primals[0], *residuals.res,
                      *[c for c, m in zip(ct, plan.out_inexact) if m],
                      branches=plan.bwd_for(needs))
    it = iter(cts)
    return [None] + [next(it) if d and n else None for d, n in zip(plan.diff, needs)]


@cond_p.def_batch
def _cond_batch(vals: Sequence[Any], dims: Sequence[int | None], *, branches: tuple[IR, ...]
                ) -> tuple[Any, list[int | None]]:
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
    def per_example(i: Any, *xs: Any) -> list[Any]:
        res = eval_ir(branches[0], *xs)
        for k in range(1, len(branches)):
            res = [P.where(P.eq(i, k), o, r) for o, r in zip(eval_ir(branches[k], *xs), res)]
        return res
    outs = vmap(per_example, in_axes=tuple(dims), axis_size=size)(*vals)
    return tuple(outs), [0] * len(outs)


def _stage_branches(funs: Sequence[Callable[..., Any]], names: Sequence[str],
                    operands: Sequence[PyTree], what: str
                    ) -> tuple[list[IR], list[Any], list[Any], Any]:
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
    all_lifted: list[Any] = []
    seen: set[int] = set()
    for _, lifted, _, _ in staged:
        for t in lifted:
            if id(t) not in seen:
                seen.add(id(t))
                all_lifted.append(t)
    irs = [_with_inputs(ir, lifted, all_lifted) for ir, lifted, _, _ in staged]
    # identical output types (JAX's rule); a Python-scalar output adopts the others' dtype
    dtypes = _join_outputs(irs, [s[3] for s in staged], names, trees[0], what)
    return ([_literals_to_consts(ir, dtypes) for ir in irs], all_lifted, leaves, trees[0])


def _join_outputs(irs: Sequence[IR], weak: Sequence[Sequence[bool]], names: Sequence[str],
                  tree: Any, what: str) -> list[Any]:
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
                    cast(Literal, ir.out_vars[k]).val, ref.dtype) == ref.dtype  # weak: a literal
            else:
                ok = a == ref
            if not ok:
                raise TypeError(
                    f"{what}: the branches must return outputs of identical shapes and dtypes "
                    f"(no implicit promotion, as in JAX); output leaf {k} (output structure "
                    f"{tree}) is "
                    f"{_aval_str(ref)} in {names[r]} but {_aval_str(a)} in {names[b]}. "
                    + ("Cast one of them (e.g. with .astype(...)) so that they agree."
                       if a.shape == ref.shape else
                       "Make the shapes agree (e.g. with fnp.broadcast_to or a reshape)."))
        dtypes.append(ref.dtype)
    return dtypes


def switch(index: ArrayLike, branches: Sequence[Callable[..., Any]],
           *operands: PyTree) -> PyTree:
    """Apply ``branches[index](*operands)`` (JAX's ``lax.switch``).

    Parameters
    ----------
    index : ArrayLike
        An integer scalar (array, tracer or Python int), clamped to ``[0, len(branches) - 1]`` as in JAX, so out-of-range values pick
        the first or the last branch.
    branches : sequence of callable
        Each takes ``*operands`` and returns a pytree; all branches must return the same
        structure with identical shapes and dtypes (Python scalars adopt the dtype of
        the other branches).
    *operands : PyTree
        Pytrees of arrays or Python scalars, passed to the chosen branch.

    Returns
    -------
    PyTree
        The chosen branch's output.  Every branch is traced once, on abstract values.

    Raises
    ------
    TypeError
        A non-scalar or non-integer index, an empty or non-callable ``branches``, or
        branch outputs that differ in structure, shape or dtype.
    ValueError
        Under ``vmap`` with a batched index, nothing: every branch runs on every example
        and each example selects its own (a NaN in an unselected branch can then reach a
        gradient; use the double-``where`` idiom of ``ftrans.primitives.select``).

    Examples
    --------
    >>> from ftrans import lax
    >>> lax.switch(1, [lambda x: x + 1.0, lambda x: x * 2.0, lambda x: -x], 3.0)
    array(6.)
    """
    if isinstance(branches, (list, tuple)):
        branches = tuple(branches)
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


def cond(pred: ArrayLike, true_fun: Callable[..., Any], false_fun: Callable[..., Any],
         *operands: PyTree) -> PyTree:
    """Conditionally apply ``true_fun`` or ``false_fun`` (JAX's ``lax.cond``).

    ``true_fun(*operands)`` if ``pred`` else ``false_fun(*operands)``, as one
    differentiable, batchable, stageable primitive.

    Parameters
    ----------
    pred : ArrayLike
        A scalar (bool or number; nonzero is true).
    true_fun, false_fun : callable
        Take ``*operands``; must return the same pytree structure with identical shapes
        and dtypes.  Both are traced (on abstract values); only one runs.
    *operands : PyTree
        Pytrees of arrays or Python scalars, passed to the selected function.

    Returns
    -------
    PyTree
        The selected function's output.

    Raises
    ------
    TypeError
        A non-scalar ``pred`` (use ``fnp.where`` for an elementwise choice), a
        non-callable branch, or outputs that differ in structure, shape or dtype.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp
    >>> from ftrans import lax
    >>> lax.cond(True, lambda x: x + 1.0, lambda x: x - 1.0, fnp.ones(2))
    array([2., 2.])
    >>> f = lambda x: lax.cond(x > 0, fnp.sin, fnp.cos, x)
    >>> float(ftrans.grad(f)(0.0))  # the derivative of the branch taken: -sin(0)
    -0.0
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


def _cond(index: Any, funs: Sequence[Callable[..., Any]], names: Sequence[str],
          operands: Sequence[PyTree], what: str) -> PyTree:
    irs, lifted, leaves, out_tree = _stage_branches(funs, names, operands, what)
    outs = cond_p.bind(index, *lifted, *leaves, branches=tuple(irs))
    return tree_unflatten(out_tree, list(outs))




# =================================================================================
# select
# =================================================================================
def select(pred: ArrayLike, on_true: ArrayLike, on_false: ArrayLike) -> Array:
    """Elementwise ``on_true if pred else on_false`` (JAX's ``lax.select``).

    The ``select`` primitive (``ftrans.primitives.where``) with lax's strict rules.

    Parameters
    ----------
    pred : ArrayLike
        Boolean, a scalar or of the operands' shape.
    on_true, on_false : ArrayLike
        Arrays of identical shape and dtype.

    Returns
    -------
    Array
        Of the operands' shape and dtype.

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
