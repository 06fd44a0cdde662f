"""Reverse mode: the VJP trace (a tape), ``vjp``, ``grad`` and ``value_and_grad``.

A :class:`VJPTrace` records, for every primitive applied to its own tracers, one
tape entry ``(prim, params, residuals, ans, parents)``: the primal inputs (or what
the primitive's ``vjp_fwd`` chose to save) and the output are the *residuals* the
VJP rule needs, ``parents`` the tape positions of the
inputs (-1 for constants).  Positions increase in execution order, so the
backward pass walks the tape once from the end, calling each rule with the
accumulated output cotangent.  Only entries that lead to the output are visited
with a cotangent, and inputs that are constants get none (``needs``).

The backward pass runs on whatever trace is current when ``vjp_fn`` is called and
its rules are ordinary ftrans operations: ``grad(grad(f))``, ``jvp`` of ``grad``
and ``grad`` of ``jvp`` all work by nesting.

Complex numbers follow PyTorch's convention (autograd notes): ``grad`` of a real
loss ``L`` of ``z = x + iy`` is ``dL/dx + i dL/dy``; ``holomorphic=True`` returns
``f'(z)`` as JAX does.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Trace, PrimalTracer, zero, set_current_trace, is_inexact, float0  # noqa: F401
from ..core.trace import _ctx
from ..core import debug
from ..core.abstract import dtype_of
from ._util import decorator_factory
from ._util import (check_input, as_output, check_output_leaf, split_aux, normalize_argnums,
                    tree_flatten, tree_unflatten, zeros_like_leaf)
from ..kernels import backend_for
from ..primitives import add, conj, convert_element_type
from ..core.primitive import Primitive
from ..typing import PyTree

__all__ = ["vjp", "vjp_unchecked", "grad", "value_and_grad", "VJPTrace", "VJPTracer"]


class VJPTracer(PrimalTracer):
    """A primal value and its position on the tape of the :class:`VJPTrace` that made it."""

    __slots__ = ("idx",)

    def __init__(self, trace: VJPTrace, primal: Any, idx: int) -> None:
        self._trace = trace
        self.primal = primal
        self.idx = idx


class _Output:
    """Tape entry of output ``k`` of a multiple-results primitive recorded at ``src``."""

    __slots__ = ("src", "k")

    def __init__(self, src: int, k: int) -> None:
        self.src = src
        self.k = k


class VJPTrace(Trace):
    """Reverse-mode trace; see the module docstring."""

    __slots__ = ("tape",)
    #: record each primitive's inputs as its residuals even where it has a ``vjp_fwd``
    #: (``linearize`` replays the tape by binding the primitives again)
    keep_inputs = False

    def __init__(self, parent: Trace, name: str) -> None:
        super().__init__(parent, name)
        self.tape: list[Any] = []

    def new_input(self, primal: Any) -> VJPTracer:
        idx = len(self.tape)
        self.tape.append(None)
        return VJPTracer(self, primal, idx)

    def process_primitive(self, prim: Primitive, args: Sequence[Any],
                          params: dict[str, Any]) -> Any:
        parents: list[int] | None = None
        primals: list[Any] = []
        for i, a in enumerate(args):
            if isinstance(a, VJPTracer) and a._trace is self:
                if parents is None:
                    primals = list(args)
                    parents = [-1] * len(args)
                primals[i] = a.primal
                parents[i] = a.idx
        parent = self.parent
        if parents is None:
            return parent.process_primitive(prim, args, params)
        if prim.vjp_fwd is not None and not self.keep_inputs:
            with set_current_trace(parent):
                ans, residuals = prim.vjp_fwd(*primals, **params)
        else:
            ans = parent.process_primitive(prim, primals, params)
            residuals = primals
        if not prim.differentiable:
            return ans
        if prim.vjp is None:
            raise NotImplementedError(
                f"reverse-mode differentiation of primitive {prim.name!r} is not implemented")
        tape = self.tape
        idx = len(tape)
        tape.append((prim, params, residuals, ans, parents))
        if prim.multiple_results:
            outs = []
            for k, o in enumerate(ans):
                tape.append(_Output(idx, k))
                outs.append(VJPTracer(self, o, idx + 1 + k) if _has_tangent_space(o) else o)
            return tuple(outs)
        if not _has_tangent_space(ans):
            return ans
        return VJPTracer(self, ans, idx)


def _has_tangent_space(x: Any) -> bool:
    try:
        return x.dtype.kind in "fc"
    except AttributeError:  # another library's dtype object (array_api_strict)
        return is_inexact(x.dtype)


def _accumulate(cts: dict[int, Any], i: int, g: Any) -> None:
    old = cts.get(i)
    if old is None:
        cts[i] = g
    else:
        cts[i] = add(old, g)


def backward_pass(tape: list[Any], seeds: dict[int, Any], consume: bool = False
                  ) -> dict[int, Any]:
    """Propagate cotangents from ``seeds`` ({tape position: cotangent}) to the inputs.

    With ``consume=True`` (a single backward pass, as in ``grad``) each entry's
    residuals are released as soon as its rule has run, as PyTorch frees its graph's
    buffers: the memory of the forward pass shrinks while the backward pass runs
    instead of being freed all at once at the end.

    Returns ``{input position: cotangent}`` for the inputs reached.
    """
    cts = dict(seeds)
    results: dict[int, Any] = {}
    if not cts:
        return results
    for i in range(max(cts), -1, -1):
        ct = cts.pop(i, None)
        if ct is None:
            continue
        entry = tape[i]
        if entry is None:
            results[i] = ct
            continue
        if type(entry) is _Output:
            slots = cts.get(entry.src)
            if slots is None:
                slots = cts[entry.src] = _OutputCts(len(tape[entry.src][3]))
            slots.add(entry.k, ct)
            continue
        prim, params, primals, ans, parents = entry
        needs = [p >= 0 for p in parents]
        if type(ct) is _OutputCts:
            ct = ct.instantiate(ans)
        in_cts = prim.vjp(ct, ans, primals, needs, **params)
        if debug.nans:
            debug.check(prim, [g for g in in_cts if g is not None], "VJP")
        if consume:
            tape[i] = _CONSUMED
            entry = primals = ans = ct = None
        for p, g in zip(parents, in_cts):
            if p >= 0 and g is not None and g is not zero:
                _accumulate(cts, p, g)
        in_cts = None
    return results


_CONSUMED = ("consumed",)  # a tape entry whose residuals were released


class _OutputCts:
    """Cotangents of the outputs of a multiple-results primitive, collected in backward."""

    __slots__ = ("cts",)

    def __init__(self, n: int) -> None:
        self.cts: list[Any] = [None] * n

    def add(self, k: int, g: Any) -> None:
        old = self.cts[k]
        if old is None:
            self.cts[k] = g
        else:
            self.cts[k] = add(old, g)

    def instantiate(self, ans: Sequence[Any]) -> tuple[Any, ...]:
        return tuple(zeros_like_leaf(a) if c is None else c for c, a in zip(self.cts, ans))


def _trace_call(fun: Callable[..., Any], args: Sequence[PyTree],
                diff_leaf_mask: Sequence[list[bool] | None], name: str, has_aux: bool
                ) -> tuple[VJPTrace, list[Any], PyTree, PyTree]:
    """Run ``fun`` on a new VJPTrace with tracers for the leaves marked in ``diff_leaf_mask``.

    ``args`` is a tuple of pytrees; ``diff_leaf_mask`` a list (per argument) of lists
    of bools (per leaf) or None for arguments not differentiated.
    Returns (trace, input_positions, out, aux).
    """
    trace = VJPTrace(_ctx.trace, name)
    new_args: list[Any] = []
    positions: list[Any] = []
    for a, mask in zip(args, diff_leaf_mask):
        if mask is None:  # not differentiated: passed through untouched (strings,
            new_args.append(a)  # callables, weakly typed Python scalars ...)
            positions.append(None)
            continue
        leaves, tree = tree_flatten(a)
        leaves = [check_input(l, name) for l in leaves]
        pos: list[int | None] = []
        for j, l in enumerate(leaves):
            if mask[j] and is_inexact(l.dtype):
                t = trace.new_input(l)
                leaves[j] = t
                pos.append(t.idx)
            else:
                pos.append(None)
        new_args.append(tree_unflatten(tree, leaves))
        positions.append((pos, tree, [l.primal if isinstance(l, VJPTracer) and l._trace is trace
                                      else l for l in leaves]))
    try:
        with set_current_trace(trace):
            out = fun(*new_args)
    finally:
        trace.finish()
    aux = None
    if has_aux:
        out, aux = split_aux(out, name)
        aux = _strip(aux, trace)
    return trace, positions, out, aux


def _strip(tree: PyTree, trace: VJPTrace) -> PyTree:
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [as_output(l.primal) if isinstance(l, VJPTracer) and l._trace is trace
                               else l for l in leaves])


def _out_leaves(out: PyTree, trace: VJPTrace) -> tuple[list[Any], list[int | None], Any]:
    """Split output leaves into primal values and tape positions (None: constant)."""
    leaves, tree = tree_flatten(out)
    primals: list[Any] = []
    pos: list[int | None] = []
    for o in leaves:
        if isinstance(o, VJPTracer) and o._trace is trace:
            primals.append(o.primal)
            pos.append(o.idx)
        else:
            primals.append(check_output_leaf(o))
            pos.append(None)
    return primals, pos, tree


def _input_cts(results: dict[int, Any], positions: Sequence[Any]) -> list[PyTree]:
    """Per argument, the pytree of cotangents (zeros where nothing arrived)."""
    grads: list[PyTree] = []
    for entry in positions:
        if entry is None:
            grads.append(None)
            continue
        pos, tree, primals = entry
        leaves = []
        for p, x in zip(pos, primals):
            g = results.get(p) if p is not None else None
            leaves.append(as_output(zeros_like_leaf(x) if g is None else g))
        grads.append(tree_unflatten(tree, leaves))
    return grads


def vjp(fun: Callable[..., Any], *primals: PyTree, has_aux: bool = False
        ) -> tuple[Any, ...]:
    """Reverse-mode vector-Jacobian product: ``fun(*primals)`` and a function for ``J^H ct``.

    ``fun`` runs once, recording the primitives it applies on a tape; ``vjp_fn`` walks
    the tape backwards (JAX's ``jax.vjp``).

    Parameters
    ----------
    fun : callable
        Function of ``len(primals)`` positional pytree arguments.
    *primals : PyTree
        The point: pytrees of arrays or Python scalars.
    has_aux : bool, default False
        ``fun`` returns ``(output, aux)``; ``aux`` is returned, not differentiated.

    Returns
    -------
    out : PyTree
        ``fun(*primals)``.
    vjp_fn : callable
        ``vjp_fn(ct)`` takes a cotangent with the structure, shapes and dtypes of
        ``out`` and returns a tuple with one cotangent pytree per primal,
        ``J^H ct`` (PyTorch's convention for complex values; see module docstring).
        ``vjp_fn`` may be called any number of times.  Integer/boolean inputs get
        ``float0`` zeros.  A Python ``float`` is accepted as the cotangent of a real
        0-d output and a Python ``complex`` as that of a complex one (weak types);
        the cotangent of an integer/boolean output is ignored (any dtype, e.g.
        ``float0``, of the right shape).
    aux : PyTree
        Only with ``has_aux=True``: the auxiliary data.

    Raises
    ------
    ValueError
        From ``vjp_fn``, if the cotangent's structure differs from ``out``'s, or a leaf's
        shape or dtype differs from its output's (as JAX: a complex cotangent for a real
        output, an integer or float32 one for a float64 output ...); cast it first.

    Notes
    -----
    Follows ``jax.vjp`` (https://docs.jax.dev/en/latest/_autosummary/jax.vjp.html),
    including its strict cotangent dtypes.  For complex values ``vjp_fn`` computes
    ``J^H ct`` (the conjugate transpose; PyTorch's convention, see "Autograd for
    Complex Numbers" in PyTorch's autograd notes) where JAX computes ``ct^T J``.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> out, vjp_fn = ftrans.vjp(lambda x: x ** 2, np.array([1.0, 2.0]))
    >>> vjp_fn(np.ones(2))
    (array([2., 4.]),)
    """
    return _vjp(fun, primals, has_aux, True)


def vjp_unchecked(fun: Callable[..., Any], *primals: PyTree, has_aux: bool = False
                  ) -> tuple[Any, ...]:
    """:func:`vjp` whose ``vjp_fn`` casts a cotangent of another dtype to its output's
    dtype instead of raising (shapes and structure are still checked).

    For internal callers that pass cotangents computed by a backward pass (whose
    dtypes may be promoted), and for ``compat.func.vjp``, which casts as PyTorch does.
    """
    return _vjp(fun, primals, has_aux, False)


def _vjp(fun: Callable[..., Any], primals: Sequence[PyTree], has_aux: bool, strict: bool
         ) -> tuple[Any, ...]:
    trace, positions, out, aux = _trace_call(fun, primals, [[True] * len(tree_flatten(p)[0])
                                                          for p in primals], "vjp", has_aux)
    out_primals, out_pos, out_tree = _out_leaves(out, trace)
    tape = trace.tape

    def vjp_fn(ct: PyTree) -> tuple[PyTree, ...]:
        ct_leaves, ct_tree = tree_flatten(ct)
        if ct_tree != out_tree:
            raise ValueError(f"vjp_fn: the cotangent must have the structure of the output "
                             f"{out_tree}, got {ct_tree}")
        seeds: dict[int, Any] = {}
        for k, (c, o, p) in enumerate(zip(ct_leaves, out_primals, out_pos)):
            weak = _weak_scalar(c)
            c = check_input(c, "vjp_fn")
            if strict:
                _check_cotangent(c, o, weak, k, len(ct_leaves))
            elif tuple(c.shape) != tuple(o.shape):
                raise ValueError(f"vjp_fn: cotangent shape {tuple(c.shape)} does not match the "
                                 f"output shape {tuple(o.shape)}")
            if p is not None:
                if dtype_of(c) != dtype_of(o) and (weak or not strict):
                    c = convert_element_type(c, o.dtype)
                _seed(seeds, p, c)
        results = backward_pass(tape, seeds)
        return tuple(_input_cts(results, positions))

    outs = tree_unflatten(out_tree, [as_output(o) for o in out_primals])
    if has_aux:
        return outs, vjp_fn, aux
    return outs, vjp_fn


def _weak_scalar(c: Any) -> bool:
    """Is ``c`` weakly typed: a Python scalar (or a staged one under jit)?"""
    if isinstance(c, (bool, int, float, complex)) and not isinstance(c, np.generic):
        return True
    return bool(getattr(getattr(c, "aval", None), "weak_type", False))


def _check_cotangent(c: Any, o: Any, weak: bool, k: int, n: int) -> None:
    """Raise ValueError (JAX's type) unless the cotangent leaf ``c`` has the shape and
    dtype of the output leaf ``o`` (number ``k`` of ``n``).  A weakly typed (``weak``)
    Python float (complex) fits any real (complex) output; integer/boolean outputs take
    any dtype."""
    o_dt, c_dt = dtype_of(o), dtype_of(c)
    shape = tuple(c.shape)
    same_shape = shape == tuple(o.shape)
    if not is_inexact(o_dt):
        ok_dtype = True
    elif weak:
        ok_dtype = c_dt.kind == o_dt.kind
    else:
        ok_dtype = c_dt == o_dt
    if same_shape and ok_dtype:
        return
    where = "the cotangent" if n == 1 else f"cotangent leaf {k} (in flattened order)"
    cast = f", e.g. ct.astype({o_dt.name!r})" if same_shape else ""
    if weak and c_dt.kind in "iub":
        cast = " (a Python float such as 1.0, not an int, for a real output)"
    elif c_dt.kind == "c" and o_dt.kind != "c":
        cast = " (the cotangent of a real output is real)"
    raise ValueError(
        f"vjp: {where} passed to vjp_fn (from ftrans.vjp) has shape {shape} and dtype "
        f"{c_dt.name}, but the corresponding output of the differentiated function has "
        f"shape {tuple(o.shape)} and dtype {o_dt.name}; pass a cotangent of that shape and "
        f"dtype{cast}")


def _seed(seeds: dict[int, Any], p: int, c: Any) -> None:
    if p in seeds:
        seeds[p] = add(seeds[p], c)
    else:
        seeds[p] = c


@decorator_factory
def value_and_grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0,
                   has_aux: bool = False, holomorphic: bool = False,
                   allow_int: bool = False) -> Callable[..., Any]:
    """Function returning ``(fun(*args), gradient)`` of a scalar-valued ``fun``.

    One forward pass records the tape, one backward pass gives the gradient with
    respect to the arguments ``argnums`` (JAX's ``jax.value_and_grad``).  Called with
    keyword options only (``value_and_grad(argnums=1)``) it returns a decorator.

    Parameters
    ----------
    fun : callable
        Returns a real scalar (a complex scalar with ``holomorphic=True``), or a pair
        ``(scalar, aux)`` with ``has_aux=True``.
    argnums : int or sequence of int, default 0
        Positional arguments to differentiate (negative counts from the end).  A tuple
        gives a tuple of gradients.
    has_aux : bool, default False
        ``fun`` returns ``(scalar, aux)``; ``aux`` is returned, not differentiated.
    holomorphic : bool, default False
        ``fun`` is complex-differentiable in complex inputs; the result is ``f'(z)``.
    allow_int : bool, default False
        Allow integer/boolean arguments; their gradient is a ``float0`` zero array.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> (value, grad)`` or ``((value, aux), grad)``.  Each gradient
        has the structure, shape and dtype of its argument.

    Raises
    ------
    TypeError
        Non-scalar output (use ``jacrev`` or ``vjp``), complex output without
        ``holomorphic=True``, integer input without ``allow_int=True``, real input with
        ``holomorphic=True``, or a ``has_aux`` function not returning a pair.
    ValueError
        If ``argnums`` is empty, out of range or repeats an argument.

    Notes
    -----
    Follows ``jax.value_and_grad``
    (https://docs.jax.dev/en/latest/_autosummary/jax.value_and_grad.html).  The
    gradient of a real loss of complex inputs ``z = x + iy`` is ``dL/dx + i dL/dy``
    (PyTorch's convention); JAX returns its conjugate.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> val, g = ftrans.value_and_grad(lambda x: fnp.sum(x ** 2))(np.array([1.0, 2.0]))
    >>> float(val), g
    (5.0, array([2., 4.]))
    """
    name = "grad"

    def value_and_grad_f(*args: Any, **kwargs: Any) -> tuple[Any, Any]:
        nums, single = normalize_argnums(argnums, len(args), name)
        masks: list[list[bool] | None] = []
        for i, a in enumerate(args):
            if i not in nums:
                masks.append(None)
                continue
            leaves = tree_flatten(a)[0]
            for l in leaves:
                _check_grad_input(check_input(l, name), i, holomorphic, allow_int)
            masks.append([True] * len(leaves))
        f = (lambda *a: fun(*a, **kwargs)) if kwargs else fun
        trace, positions, out, aux = _trace_call(f, args, masks, name, has_aux)
        out_primals, out_pos, out_tree = _out_leaves(out, trace)
        if out_tree.num_leaves != 1 or out_tree.kind is not None:
            raise TypeError(f"grad requires a scalar output (shape ()), but the function "
                            f"returned a {out_tree} pytree; use ftrans.jacrev or ftrans.vjp "
                            "for non-scalar or structured outputs")
        value, pos = out_primals[0], out_pos[0]
        if tuple(value.shape) != ():
            raise TypeError(f"grad requires a scalar output (shape ()), got shape "
                            f"{tuple(value.shape)}; use ftrans.jacrev or ftrans.vjp for "
                            "non-scalar outputs, or reduce the output (e.g. .sum())")
        _check_grad_output(value, holomorphic)
        results: dict[int, Any] = {}
        if pos is not None:
            one = np.ones((), dtype=value.dtype) if isinstance(value, (np.ndarray, np.generic)) \
                else _ones_like_scalar(value)
            results = backward_pass(trace.tape, {pos: one}, consume=True)
        grads = _input_cts(results, positions)
        if holomorphic:
            grads = [None if g is None else _tree_map(lambda l: as_output(conj(l)), g)
                     for g in grads]
        grads = [grads[i] for i in nums]
        g = grads[0] if single else tuple(grads)
        value = as_output(value)
        return ((value, aux) if has_aux else value), g

    value_and_grad_f.__name__ = f"value_and_grad({getattr(fun, '__name__', 'fun')})"
    value_and_grad_f.__wrapped__ = fun  # type: ignore[attr-defined]  # as functools.wraps
    return value_and_grad_f


def _tree_map(f: Callable[[Any], Any], tree: PyTree) -> PyTree:
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [f(l) if l.dtype != float0 else l for l in leaves])


def _ones_like_scalar(value: Any) -> Any:
    """A 0-d one in ``value``'s array library (CuPy, Dask, array-API arrays)."""
    return backend_for(value).xp.ones((), dtype_of(value))


def _check_grad_input(x: Any, i: int, holomorphic: bool, allow_int: bool) -> None:
    kind = dtype_of(x).kind
    if kind not in "fc" and not allow_int:
        raise TypeError(
            f"grad requires real- or complex-valued inputs (floating-point dtypes), but "
            f"argument {i} has dtype {x.dtype}; pass a float array (e.g. x.astype(float)) "
            "or use allow_int=True to get a float0 zero gradient for it")
    if holomorphic and kind == "f":
        raise TypeError(f"grad with holomorphic=True requires complex inputs, but argument "
                        f"{i} has dtype {x.dtype}")


def _check_grad_output(value: Any, holomorphic: bool) -> None:
    kind = dtype_of(value).kind
    if holomorphic:
        if kind != "c":
            raise TypeError(f"grad with holomorphic=True requires a complex output, got "
                            f"dtype {value.dtype}")
    elif kind == "c":
        raise TypeError("grad requires a real-valued output, got a complex one; use "
                        "holomorphic=True for a holomorphic function, or differentiate a "
                        "real quantity such as abs(f)**2 or real(f)")
    elif kind not in "f":
        raise TypeError(f"grad requires a floating-point output, got dtype {value.dtype}")


@decorator_factory
def grad(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
         holomorphic: bool = False, allow_int: bool = False) -> Callable[..., Any]:
    """Gradient of a scalar-valued function (JAX's ``jax.grad``).

    Reverse mode: one forward pass and one backward pass, whatever the number of
    inputs.  Called with keyword options only (``grad(argnums=1)``) it returns a
    decorator.

    Parameters
    ----------
    fun : callable
        Returns a real scalar (shape ``()``; a complex scalar with
        ``holomorphic=True``), or a pair ``(scalar, aux)`` with ``has_aux=True``.
        Keyword arguments are passed through, not differentiated.
    argnums : int or sequence of int, default 0
        Positional arguments to differentiate (negative counts from the end).  A
        sequence gives a tuple of gradients.
    has_aux : bool, default False
        ``fun`` returns ``(scalar, aux)``; ``aux`` is returned, not differentiated.
    holomorphic : bool, default False
        ``fun`` is complex-differentiable in complex inputs; the result is ``f'(z)``.
    allow_int : bool, default False
        Allow integer/boolean arguments; their gradient is a ``float0`` zero array.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> grad`` (or ``(grad, aux)`` with ``has_aux=True``).
        Each gradient has the structure, shape and dtype of its argument.

    Raises
    ------
    TypeError
        When the returned function is called: non-scalar output (use ``jacrev`` or
        ``vjp``), complex output without ``holomorphic=True``, integer input without
        ``allow_int=True``, or a ``has_aux`` function not returning a pair.
    ValueError
        If ``argnums`` is empty, out of range or repeats an argument.

    See Also
    --------
    value_and_grad : The value and the gradient in one pass.
    jacrev : Jacobians of non-scalar functions.

    Notes
    -----
    Follows ``jax.grad`` (https://docs.jax.dev/en/latest/_autosummary/jax.grad.html).
    For complex inputs the gradient of a real loss is ``dL/dx + i dL/dy`` (PyTorch's
    convention, the conjugate of JAX's).

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.grad(lambda x: fnp.sum(x ** 3))(np.array([1.0, 2.0]))
    array([ 3., 12.])

    Several arguments, and a second derivative:

    >>> ftrans.grad(lambda x, y: x * y ** 2, argnums=(0, 1))(3.0, 2.0)
    (array(4.), array(12.))
    >>> bool(ftrans.grad(ftrans.grad(fnp.sin))(0.5) == -np.sin(0.5))
    True
    """
    vg = value_and_grad(fun, argnums, has_aux, holomorphic, allow_int)

    def grad_f(*args: Any, **kwargs: Any) -> Any:
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    grad_f.__name__ = f"grad({getattr(fun, '__name__', 'fun')})"
    grad_f.__wrapped__ = fun  # type: ignore[attr-defined]  # as functools.wraps
    return grad_f



