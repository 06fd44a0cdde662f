"""``while_loop`` (the ``while`` primitive) and ``fori_loop`` (a ``scan`` for static
bounds, a ``while`` for traced ones)."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Primitive, ShapedArray, Tracer, zero
from ..core.ir import IR, stage, eval_ir
from ..core.pytree import tree_flatten, tree_unflatten
from .. import primitives as P
from ..typing import ArrayLike, PyTree
from ..primitives._rules import batch_size, move_to_front, batched_front
from ..transforms.jit import jit_disabled
from ._programs import _Tiered
from ._programs import (_as_operand, _aval, _aval_str, _backend, _literals_to_consts,
                        _stage_fun, _reorder, _with_inputs, _cached,
                        _arr, _arrays, _zeros_like, _jvp_ir, _batch_ir,
                        _batch_fixpoint, _check_carry, _static_int)
from ._scan import _scan


# =================================================================================
# while_loop / fori_loop
# =================================================================================
while_p = Primitive("while", multiple_results=True)
while_p.lowering = {"kind": "while"}  # a while loop in the compiled code (ftrans.compiler._numba_control)


@while_p.def_impl
def _while_impl(*args: Any, cond: IR, body: IR, n_cond: int, n_body: int) -> tuple[Any, ...]:
    cc, bc = args[:n_cond], args[n_cond:n_cond + n_body]
    carry = list(args[n_cond + n_body:])
    backend = _backend(args)
    pred, step = _Tiered(cond, backend), _Tiered(body, backend)
    while bool(pred(*cc, *carry)[0]):
        carry = step(*bc, *carry)
    return tuple(_arr(c) for c in carry)


@while_p.def_abstract_eval
def _while_abstract_eval(*avals: ShapedArray, cond: IR, body: IR, n_cond: int, n_body: int
                         ) -> tuple[ShapedArray, ...]:
    return tuple(ShapedArray(a.shape, a.dtype) for a in body.in_avals[n_body:])


@while_p.def_jvp
def _while_jvp(primals: Sequence[Any], tangents: Sequence[Any], *, cond: IR, body: IR,
               n_cond: int, n_body: int) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
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
    ht = [_zeros_like(p) if t is zero else t
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
def _while_vjp(ct: Any, ans: Any, primals: Any, needs: Any, **params: Any) -> list[Any]:
    raise ValueError(_WHILE_VJP)


@while_p.def_batch
def _while_batch(vals: Sequence[Any], dims: Sequence[int | None], *, cond: IR, body: IR,
                 n_cond: int, n_body: int) -> tuple[Any, list[int | None]]:
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


def _frozen_lanes(bcond: IR, bbody: IR, nc: int, nb: int, size: int) -> tuple[IR, IR]:
    """For a batched predicate: the loop runs while any example's predicate holds; the
    step applies the body and keeps the old carry of the examples that are done."""
    def any_true(*xs: Any) -> list[Any]:
        pred = eval_ir(bcond, *xs)[0]
        return [P.gt(P.reduce_max(P.convert_element_type(pred, np.dtype("int32")), (0,)), 0)]

    def step(*xs: Any) -> list[Any]:
        cc, bc, carry = xs[:nc], xs[nc:nc + nb], xs[nc + nb:]
        pred = eval_ir(bcond, *cc, *carry)[0]
        new = eval_ir(bbody, *bc, *carry)
        return [P.where(P.reshape(pred, (size,) + (1,) * (len(c.shape) - 1)), n, c)
                for n, c in zip(new, carry)]
    anyc = stage(any_true, bcond.in_avals, "vmap")[0]
    step_ir = stage(step, bcond.in_avals[:nc] + bbody.in_avals, "vmap")[0]
    return anyc, step_ir


def while_loop(cond_fun: Callable[..., Any], body_fun: Callable[..., Any],
               init_val: PyTree) -> PyTree:
    """Loop ``body_fun`` while ``cond_fun`` is true (JAX's ``lax.while_loop``).

    ``val = init_val; while cond_fun(val): val = body_fun(val)``, as one primitive.

    Parameters
    ----------
    cond_fun : callable
        ``carry -> bool scalar``.
    body_fun : callable
        ``carry -> carry`` with the structure, shapes and dtypes of ``init_val``
        (Python-scalar outputs adopt the carry's dtype when NumPy's rules allow).
    init_val : PyTree
        The initial carry: a pytree of arrays or Python scalars.

    Returns
    -------
    PyTree
        The final carry.

    Raises
    ------
    TypeError
        ``cond_fun`` not returning a boolean scalar, or ``body_fun`` changing the carry's
        structure, shapes or dtypes.
    ValueError
        When differentiated in reverse mode (see the module docstring); forward mode and
        ``vmap`` work (a batched predicate runs until every example is done).

    Examples
    --------
    >>> from ftrans import lax
    >>> lax.while_loop(lambda x: x < 10, lambda x: x * 2, 1)
    array(16)
    >>> lax.while_loop(lambda c: c[0] < 3, lambda c: (c[0] + 1, c[1] * 2.0), (0, 1.0))
    (array(3), array(8.))
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


def fori_loop(lower: ArrayLike, upper: ArrayLike, body_fun: Callable[..., Any],
              init_val: PyTree, *, unroll: int | bool | None = None) -> PyTree:
    """Loop ``body_fun`` over ``range(lower, upper)`` (JAX's ``lax.fori_loop``).

    ``val = init_val; for i in range(lower, upper): val = body_fun(i, val)``.

    With concrete integer bounds (Python or NumPy ints) the loop lowers to :func:`scan`
    and is differentiable in both modes; with traced bounds (inside ``jit`` or ``vmap``
    over them) it lowers to :func:`while_loop` (forward mode only).

    Parameters
    ----------
    lower, upper : ArrayLike
        Integer scalars: the loop bounds.
    body_fun : callable
        ``(i, carry) -> carry``; ``i`` is an integer scalar of the bounds' dtype.
    init_val : PyTree
        The initial carry.
    unroll : int or bool, optional
        Passed to :func:`scan` for static bounds.

    Returns
    -------
    PyTree
        The final carry (``init_val`` itself when ``upper <= lower``).

    Raises
    ------
    TypeError
        Non-integer bounds, or a body changing the carry's structure/shapes/dtypes.

    Examples
    --------
    >>> import ftrans
    >>> from ftrans import lax
    >>> lax.fori_loop(0, 5, lambda i, x: x * 2.0, 1.0)
    array(32.)
    >>> f = lambda x: lax.fori_loop(0, 3, lambda i, c: c * x, 1.0)  # x ** 3
    >>> float(ftrans.grad(f)(2.0))
    12.0
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
        def step(carry: tuple[Any, PyTree], _: Any) -> tuple[tuple[Any, PyTree], None]:
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
