"""What ``compat.func``'s transforms share: argument checks, Tensors <-> arrays, and
:func:`call_transformed`, which runs a transformed array function on compat Tensors.

A transform of ``compat.func`` is an ftrans transform (``ftrans.value_and_grad``,
``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``vmap``) of ``func`` seen as a function of
arrays: the arrays are wrapped in plain Tensors (grad mode off: no compat graph is
recorded, the ftrans trace differentiates or batches), ``func`` runs once and its Tensor
results are unwrapped.  :func:`call_transformed` hands that whole computation -- a
function of the arrays of every Tensor in the arguments -- to :func:`run`:

* no argument requires grad (or grad mode is off) and no forward AD level holds a
  tangent for one: the computation runs, its arrays become plain Tensors;
* otherwise the results get *one* compat graph node (:class:`_TransformFn`) whose
  backward is ``ftrans.vjp`` of the computation and whose forward-mode rule is
  ``ftrans.jvp`` of it.  With ``create_graph=True`` the backward runs through
  :func:`run` again, so the gradients are themselves differentiable (to any order).
  Results that do not depend on an input requiring grad are not differentiable
  (``requires_grad=False``), as in PyTorch.
"""
from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .. import transforms as _TR
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.trace import Tracer
from ..transforms.vjp import vjp_unchecked
from . import _factories as F
from . import _opbase as _B
from ._tensor import Tensor, _make_plain
from .autograd import forward_ad as _FW
from .autograd.function import Function
from .autograd import grad_mode as _GM
from .autograd.grad_mode import enable_grad, is_grad_enabled, no_grad

__all__ = ["check_argnums", "split_aux", "check_diff", "diff_datas", "to_data", "to_tensors",
           "substitute", "check_scalar", "call_transformed", "run", "is_tensor", "replaying"]


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def check_argnums(argnums: Any, nargs: int, api: str) -> list[int]:
    """torch.func's ``argnums`` rules: the positions (non-negative, unique), or
    ``RuntimeError`` with torch's messages."""
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
    else:
        got = argnums if isinstance(argnums, tuple) else type(argnums).__name__
        raise RuntimeError(f"{api}: argnums must be int or Tuple[int, ...], got: {got}")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnums={a}, but only {nargs} positional inputs")
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{api}: argnums must be unique, got {argnums}")
    return out


def split_aux(out: Any, has_aux: bool, api: str) -> tuple[Any, Any]:
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}(f, ...)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return out


def check_diff(x: Any, api: str) -> None:
    if not is_tensor(x):
        raise RuntimeError(f"{api}: Expected the differentiated arguments to be Tensors (or "
                           f"pytrees of Tensors), got {type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(f"{api}: only Tensors of floating point dtype can be "
                           f"differentiated (got {x.dtype})")


def to_data(tree: Any) -> Any:
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [x._data if is_tensor(x) else x for x in leaves])


def _is_array(x: Any) -> bool:
    return isinstance(x, Tracer) or hasattr(x, "__array_namespace__") or \
        type(x).__module__ == "numpy"


def to_tensors(tree: Any) -> Any:
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [_make_plain(x) if _is_array(x) else x for x in leaves])


def diff_datas(args: Sequence[Any], nums: Sequence[int], api: str) -> list[Any]:
    """The arrays of the differentiated arguments ``nums`` (each a pytree), checked."""
    datas = []
    for a in nums:
        leaves, td = tree_flatten(args[a])
        for x in leaves:
            check_diff(x, api)
        datas.append(tree_unflatten(td, [x._data for x in leaves]))
    return datas


def substitute(func: Callable[..., Any], args: Sequence[Any], nums: Sequence[int],
               kwargs: dict[str, Any], api: str, has_aux: bool,
               check: Callable[[Any], None] | None = None) -> Callable[..., Any]:
    """``f(*datas)`` for the ftrans transforms: ``func`` with arguments ``nums`` replaced
    by Tensors around the traced values; returns the outputs' arrays (and aux)."""
    def f(*ds: Any) -> Any:
        new = list(args)
        for a, d in zip(nums, ds):
            new[a] = to_tensors(d)
        out, aux = split_aux(func(*new, **kwargs), has_aux, api)
        if check is not None:
            check(out)
        for o in tree_flatten(out)[0]:
            if not is_tensor(o):
                raise RuntimeError(f"{api}(f, ...): Expected f to be a function that has only "
                                   f"Tensors as its outputs, got {type(o)}")
        return (to_data(out), to_data(aux)) if has_aux else to_data(out)
    return f


def check_scalar(api: str) -> Callable[[Any], None]:
    def check(out: Any) -> None:
        if not is_tensor(out):
            raise RuntimeError(f"{api}(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError(f"{api}(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you "
                               "wanted to use the vjp or jacrev APIs instead?")
    return check


# ------------------------------------------------------------------ the computation
def call_transformed(args: Any, body: Callable[[Any], Any]) -> Any:
    """``body(plain_args)`` -- a transformed computation returning a pytree of arrays
    (and other leaves) -- on the arrays of every Tensor of ``args`` (a tuple of pytrees:
    positional arguments, keyword arguments, cotangents ...), through :func:`run`:
    returns the pytree with Tensors for arrays.  Tensors ``func`` closes over are
    constants (no graph reaches them)."""
    leaves, td = tree_flatten(list(args))
    tpos = [i for i, x in enumerate(leaves) if is_tensor(x)]
    tensors = [leaves[i] for i in tpos]
    box: list[Any] = []

    def fn(datas: Sequence[Any]) -> list[Any]:
        new = list(leaves)
        with _func_grad(True):   # the user's function: grad mode on as it sees it
            for i, d in zip(tpos, datas):
                if d is not leaves[i]._data:
                    new[i] = _make_plain(d)
            out = body(tuple(tree_unflatten(td, new)))
        flat, otd = tree_flatten(out)
        arrays = [k for k, x in enumerate(flat) if _is_array(x)]
        box.append((otd, flat, arrays))
        return [flat[k] for k in arrays]

    outer = _GM._tls.func_grad
    with _func_grad(None):   # this transform's own code runs outside the user's modes
        outs = run(fn, tensors)
    if outer is False:   # called under a no_grad in a transformed function: cut there too
        outs = [_make_plain(o._data) for o in outs]
    otd, flat, arrays = box[-1]
    flat = list(flat)
    for k, o in zip(arrays, outs):
        flat[k] = o
    return tree_unflatten(otd, flat)


def _differentiable(tensors: Sequence[Tensor]) -> list[int]:
    """Positions of the tensors the results must be differentiable with respect to:
    inexact ones requiring grad (grad mode on) or holding a forward AD tangent."""
    grad_on = is_grad_enabled()
    fw = _B._fw_on and _FW._active()
    out = []
    for i, t in enumerate(tensors):
        if t._data.dtype.kind not in "fc":
            continue
        if (grad_on and t.requires_grad) or (fw and _FW._tangent_of(t) is not None):
            out.append(i)
    return out


@contextlib.contextmanager
def _func_grad(mode: bool | None) -> Iterator[None]:
    """Grad mode as a transformed function sees it (``autograd.grad_mode._State.func_grad``)
    set to ``mode`` for the block: True around the user's function (torch.func: a
    transform ignores a ``no_grad`` around its call, a ``no_grad`` inside it cuts reverse
    mode), None around a transform's own code."""
    prev = _GM._tls.func_grad
    _GM._tls.func_grad = mode
    try:
        yield
    finally:
        _GM._tls.func_grad = prev


@contextlib.contextmanager
def replaying(state: Tensor) -> Iterator[None]:
    """Run with the default generator at ``state`` (the draws of the first run), and
    give it back its own state afterwards."""
    gen = F.default_generator
    now = gen.get_state()
    gen.set_state(state)
    try:
        yield
    finally:
        gen.set_state(now)


def run(fn: Callable[[list[Any]], Sequence[Any]], tensors: Sequence[Tensor],
        direct: Callable[[list[Any], list[int]], tuple[list[Any], Callable[..., Any]]]
        | None = None) -> list[Tensor]:
    """``fn(arrays) -> list of arrays`` on the arrays of ``tensors``, as Tensors: plain
    ones, or outputs of one :class:`_TransformFn` node when some input needs a graph
    (see the module docstring).  ``direct(arrays, diff)``, when given, returns ``fn``'s
    results and their VJP function with respect to the arrays at positions ``diff``
    without tracing ``fn`` (a compiled program's own reverse-mode rules: ``compat.compile``);
    ``fn`` is still traced for higher-order and forward-mode derivatives."""
    datas = [t._data for t in tensors]
    diff = _differentiable(tensors)
    if not diff:
        with no_grad():
            return [_make_plain(o) for o in fn(datas)]
    rng_state = F.default_generator.get_state()
    dep: list[bool] = []

    def g(*dd: Any) -> list[Any]:
        full = list(datas)
        for i, d in zip(diff, dd):
            full[i] = d
        with no_grad():
            outs = list(fn(full))
        del dep[:]
        dep.extend(isinstance(o, Tracer) and any(o._trace is d._trace for d in dd
                                                 if isinstance(d, Tracer)) for o in outs)
        return outs

    if direct is not None:
        res, vjp_fn = direct(datas, diff)
        dep[:] = [r.dtype.kind in "fc" for r in res]   # (as traced: every inexact result)
    else:
        res, vjp_fn = vjp_unchecked(g, *[datas[i] for i in diff])
    if not res:
        return []
    box = _Box(g, vjp_fn, list(res), list(dep), rng_state, [datas[i] for i in diff])
    with enable_grad():
        outs = _TransformFn.apply(box, *[tensors[i] for i in diff])
    return list(outs)


class _Box:
    """What a :class:`_TransformFn` node keeps: the function of the differentiated
    arrays, its VJP, its results, which of them depend on the inputs, and the random
    generator's state before the first run (replayed by recomputations)."""
    __slots__ = ("g", "vjp_fn", "res", "dep", "rng_state", "datas")

    def __init__(self, g: Callable[..., list[Any]], vjp_fn: Callable[..., Any], res: list[Any],
                 dep: list[bool], rng_state: Tensor, datas: list[Any]) -> None:
        self.g, self.vjp_fn, self.res, self.dep = g, vjp_fn, res, dep
        self.rng_state, self.datas = rng_state, datas


class _TransformFn(Function):
    """One compat graph node for a transformed computation over inputs that require
    grad: backward is ``ftrans.vjp`` of it (recomputed through :func:`run` under
    ``create_graph``, hence differentiable again), forward AD is ``ftrans.jvp`` of it."""

    @staticmethod
    def forward(ctx: Any, box: _Box, *inputs: Tensor) -> tuple[Tensor, ...]:
        ctx.box = box
        ctx.save_for_backward(*inputs)
        outs = tuple(_make_plain(o) for o in box.res)
        ctx.mark_non_differentiable(*[o for o, d in zip(outs, box.dep) if not d])
        return outs

    @staticmethod
    def backward(ctx: Any, *cts: Tensor | None) -> tuple[Tensor | None, ...]:
        box = ctx.box
        inputs = ctx.saved_tensors
        cts_: list[Tensor] = [_make_plain(np.zeros(np.shape(r), r.dtype)) if c is None else c
                              for c, r in zip(cts, box.res)]
        if is_grad_enabled() and any(t.requires_grad for t in list(inputs) + cts_):
            n = len(inputs)

            def again(ds: list[Any]) -> list[Any]:
                with replaying(box.rng_state):
                    _, fn = vjp_unchecked(box.g, *ds[:n])
                return list(fn(list(ds[n:])))
            grads = run(again, list(inputs) + cts_)
        else:
            with no_grad():
                r = box.vjp_fn([c._data for c in cts_])
            grads = [_make_plain(x) for x in r]
        return (None,) + tuple(grads)

    @staticmethod
    def jvp(ctx: Any, _box_tangent: Any, *tangents: Tensor | None) -> tuple[Tensor, ...]:
        box = ctx.box
        tans = [np.zeros_like(x) if t is None else t._data for x, t in zip(box.datas, tangents)]
        with no_grad(), replaying(box.rng_state):
            _, out_t = _TR.jvp(box.g, tuple(box.datas), tuple(tans))
        return tuple(_make_plain(t) for t in out_t)

