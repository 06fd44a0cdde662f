"""``ftrans.compat.func``: ``torch.func``'s transforms over compat Tensors.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``,
``vmap``, ``functional_call``, ``stack_module_state``, ``linearize``, ``functionalize`` and
``replace_all_batch_norm_modules_`` with ``torch.func``'s signatures,
argument rules and return structures (pytrees -- tuples, lists, dicts -- of Tensors in
and out, ``argnums``, ``has_aux``, ``in_dims``/``out_dims``, ``randomness``).

They run on ftrans's own transforms only ("one set of traces"): a compat Tensor can hold
a Tracer of an ftrans transform, and compat operations compute with the primitives'
``bind``, so each transform hands the arrays of the differentiated (mapped) arguments to
``ftrans.value_and_grad``/``vjp``/``jvp``/``jacrev``/``jacfwd``/``vmap``, whose traced
function wraps the traced values in Tensors (grad mode off: no compat graph is recorded,
the trace differentiates/batches), calls ``func`` once and unwraps its Tensor results.
Nesting (``vmap(grad(f))``, ``grad(grad(f))``, ``hessian``) nests the ftrans transforms,
so torch's per-sample-gradients recipe runs ``func`` once, on batched traces.

Arguments that require grad while grad mode is on (or hold a forward AD tangent): the
results get one compat graph node whose backward is ``ftrans.vjp`` of the transformed
computation and whose forward-mode rule is ``ftrans.jvp`` of it; with
``create_graph=True`` the backward is itself such a computation, so derivatives of any
order flow (:mod:`._func_core`).

Operations that have no value to give under a transform raise torch.func's errors, as
torch.func does (:mod:`._tracer_values`): under ``grad``/``vjp``/``jvp``/``jacrev``/
``jacfwd`` ``.item()``, ``.tolist()``, ``float()`` and Python control flow use the
primal value (a constant); under ``vmap`` they, and boolean-mask indexing of a batched
mask, raise ``RuntimeError``.  The modules' helpers are in :mod:`._func_modules`,
``vmap`` in :mod:`._func_vmap`.  functorch's ``make_functional``,
``make_functional_with_buffers`` and ``combine_state_for_ensemble`` (PyTorch's separate
``functorch`` package) are here too (:mod:`._func_extra`).
"""
from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from .. import transforms as _TR
from ..core.pytree import tree_flatten, tree_unflatten
from ..transforms.vjp import vjp_unchecked
from . import _factories as F
from ._func_core import (call_transformed, check_argnums, check_scalar, diff_datas,
                         is_tensor, replaying, substitute, to_data)
from ._func_modules import functional_call, stack_module_state
from ._func_vmap import vmap
from ._func_extra import (functionalize, replace_all_batch_norm_modules_, make_functional,
                          make_functional_with_buffers, combine_state_for_ensemble,
                          FunctionalModule, FunctionalModuleWithBuffers)
from .autograd.grad_mode import is_grad_enabled

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "linearize", "functionalize",
           "replace_all_batch_norm_modules_",
           # functorch's (PyTorch keeps them in the separate functorch package)
           "make_functional", "make_functional_with_buffers", "combine_state_for_ensemble",
           "FunctionalModule", "FunctionalModuleWithBuffers"]


def grad_and_value(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0,
                   has_aux: bool = False) -> Callable[..., Any]:
    """``func``'s gradient and value (``torch.func.grad_and_value``).

    Runs on ``ftrans.value_and_grad``.

    Parameters
    ----------
    func : callable
        Returns a real scalar (one-element) Tensor, or ``(scalar, aux)`` with
        ``has_aux``; its arguments may be pytrees of Tensors.
    argnums : int or tuple of int, optional
        The argument(s) to differentiate with respect to.
    has_aux : bool, optional
        ``func`` returns ``(output, aux)``; ``aux`` is returned as it is.

    Returns
    -------
    callable
        ``grad_and_value(f)(*args) -> (grad, value)`` (``(grad, (value, aux))`` with
        ``has_aux``); the gradient has the structure of the differentiated argument(s)
        (a tuple over ``argnums`` when it is a tuple).  Calling it raises
        ``RuntimeError`` when ``func``'s output is not a real scalar, as ``torch.func``.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import grad_and_value
    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """
    api = "grad_and_value"

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = check_argnums(argnums, len(args), api)
        diff_datas(args, nums, api)
        sel = 0 if isinstance(argnums, int) else tuple(range(len(nums)))

        def body(plain: Any) -> Any:
            plain, kw = plain
            f = substitute(func, plain, nums, kw, api, has_aux, check_scalar(api))
            value, g = _TR.value_and_grad(f, sel, has_aux=has_aux)(*diff_datas(plain, nums,
                                                                               api))
            return g, value
        g, value = call_transformed((args, kwargs), body)
        return (g, (value[0], value[1])) if has_aux else (g, value)
    return wrapper


def grad(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0,
         has_aux: bool = False) -> Callable[..., Any]:
    """The gradient of scalar-valued ``func`` with respect to ``argnums`` (``torch.func.grad``).

    See :func:`grad_and_value`.

    Parameters
    ----------
    func : callable
        Returns a real scalar (one-element) Tensor, or ``(scalar, aux)`` with
        ``has_aux``.
    argnums : int or tuple of int, optional
        The argument(s) to differentiate with respect to.
    has_aux : bool, optional
        ``func`` returns ``(output, aux)``.

    Returns
    -------
    callable
        ``grad(f)(*args)``: the gradient, with the structure of the differentiated
        argument(s); ``(grad, aux)`` with ``has_aux``.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import grad
    >>> grad(lambda x: x.sin().sum())(torch.tensor([0.0]))
    tensor([1.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g
    return wrapper


def _check_cotangents(cts: Sequence[Any], ct_def: Any, outs: Sequence[Any], out_def: Any
                      ) -> None:
    if ct_def != out_def and not (len(outs) == 1 and len(cts) == 1):
        raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                           "pytree structure of outputs to the function. cotangents: "
                           f"{ct_def}, primal output: {out_def}")
    for c, o in zip(cts, outs):
        if tuple(c.shape) != tuple(o.shape):
            raise RuntimeError(f"Mismatch in shape: grad_output has a shape of "
                               f"{tuple(c.shape)} and output has a shape of "
                               f"{tuple(o.shape)}.")


def vjp(func: Callable[..., Any], *primals: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``func``'s output and its vector-Jacobian product function (``torch.func.vjp``).

    Runs on ``ftrans.vjp``; the output is differentiable with respect to primals that
    require grad, ``vjp_fn``'s results with respect to those primals and the cotangents.

    Parameters
    ----------
    func : callable
        Takes the primals; returns a pytree of Tensors (``(output, aux)`` with
        ``has_aux``).
    *primals : Any
        The arguments: pytrees of Tensors.
    has_aux : bool, optional
        ``func`` returns ``(output, aux)``.

    Returns
    -------
    tuple
        ``(output, vjp_fn)`` (``(output, vjp_fn, aux)`` with ``has_aux``).
        ``vjp_fn(cotangents)`` -- cotangents of ``output``'s structure -- returns a tuple
        with one cotangent per primal (each of the primal's structure); it can be called
        several times.
    """
    nums = list(range(len(primals)))
    diff_datas(primals, nums, "vjp")
    box: list[Any] = []
    rng_state = F.default_generator.get_state()

    def body(plain: Any) -> Any:
        f = substitute(func, plain, nums, {}, "vjp", has_aux)
        res = vjp_unchecked(f, *diff_datas(plain, nums, "vjp"), has_aux=has_aux)
        box.append(res[1])
        return (res[0], res[2]) if has_aux else (res[0], None)
    out, aux = call_transformed(primals, body)
    stored = box[-1]
    outs, out_def = tree_flatten(out)
    graph = is_grad_enabled() and any(is_tensor(x) and x.requires_grad
                                      for x in tree_flatten(list(primals))[0])

    def vjp_fn(cotangents: Any, *, retain_graph: bool = True,
               create_graph: bool | None = None) -> tuple[Any, ...]:
        cts, ct_def = tree_flatten(cotangents)
        _check_cotangents(cts, ct_def, outs, out_def)

        def back(plain: Any) -> Any:
            ps, cs = plain
            ct = tree_unflatten(out_def, [to_data(c) for c in tree_flatten(cs)[0]])
            if graph:     # recompute (same random draws): the graph must reach the primals
                f = substitute(func, ps, nums, {}, "vjp", has_aux)
                with replaying(rng_state):
                    fn = vjp_unchecked(f, *diff_datas(ps, nums, "vjp"), has_aux=has_aux)[1]
                return fn(ct)
            return stored(ct)
        return tuple(call_transformed((primals, cotangents), back))

    ret: tuple[Any, ...] = (out, vjp_fn)
    return ret + (aux,) if has_aux else ret


def _check_jvp_args(primals: Any, tangents: Any) -> None:
    """torch.func.jvp's argument checks (its ``RuntimeError`` messages)."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. "
                           "it should be valid to call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple.")
    pl, pdef = tree_flatten(primals)
    tl, tdef = tree_flatten(tangents)
    if pdef != tdef:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple "
                           f"of 3 tensors, tangents also must be. Got primals with structure "
                           f"{pdef} and tangents with structure {tdef}")
    for p, t in zip(pl, tl):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to "
                               f"have the same shape. Got {tuple(p.shape)} and "
                               f"{tuple(t.shape)}")


def jvp(func: Callable[..., Any], primals: Any, tangents: Any, *, strict: bool = False,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``func(*primals)`` and its derivative along ``tangents`` (``torch.func.jvp``).

    Runs on ``ftrans.jvp`` (forward mode); differentiable with respect to primals and
    tangents that require grad.

    Parameters
    ----------
    func : callable
        Takes the primals; returns a pytree of Tensors (``(output, aux)`` with
        ``has_aux``).
    primals : tuple
        The arguments (pytrees of Tensors).
    tangents : tuple
        One tangent per primal, of the same pytree structure and shapes.
    strict : bool, optional
        Accepted (torch.func's flag; no effect).
    has_aux : bool, optional
        ``func`` returns ``(output, aux)``.

    Returns
    -------
    tuple
        ``(output, jvp_out)`` (``(output, jvp_out, aux)`` with ``has_aux``).

    Raises
    ------
    RuntimeError
        ``primals`` or ``tangents`` not tuples, or of different structures or shapes.
    """
    _check_jvp_args(primals, tangents)
    nums = list(range(len(primals)))
    diff_datas(primals, nums, "jvp")

    def body(plain: Any) -> Any:
        ps, ts = plain
        f = substitute(func, ps, nums, {}, "jvp", has_aux)
        return _TR.jvp(f, tuple(diff_datas(ps, nums, "jvp")), tuple(to_data(t) for t in ts),
                       has_aux=has_aux)
    return tuple(call_transformed((primals, tangents), body))


def _jacobian(api: str, ftrans_jac: Callable[..., Any], func: Callable[..., Any],
              argnums: int | tuple[int, ...], has_aux: bool) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        nums = check_argnums(argnums, len(args), api)
        diff_datas(args, nums, api)
        sel = 0 if isinstance(argnums, int) else tuple(range(len(nums)))

        def body(plain: Any) -> Any:
            plain, kw = plain
            f = substitute(func, plain, nums, kw, api, has_aux)
            return ftrans_jac(f, sel, has_aux=has_aux)(*diff_datas(plain, nums, api))
        res = call_transformed((args, kwargs), body)
        return (res[0], res[1]) if has_aux else res
    return wrapper


def jacrev(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0, *,
           has_aux: bool = False, chunk_size: int | None = None,
           _preallocate_and_copy: bool = False) -> Callable[..., Any]:
    """Jacobian of ``func`` with respect to ``argnums`` by reverse mode (``torch.func.jacrev``).

    Runs on ``ftrans.jacrev`` (one batched VJP over the output basis).

    Parameters
    ----------
    func : callable
        Returns a pytree of Tensors (``(output, aux)`` with ``has_aux``).
    argnums : int or tuple of int, optional
        The argument(s) to differentiate with respect to.
    has_aux : bool, optional
        ``func`` returns ``(output, aux)``.
    chunk_size : int, optional
        Cotangents per batched VJP (all at once by default).
    _preallocate_and_copy : bool, optional
        torch.func's internal flag; no effect.

    Returns
    -------
    callable
        The Jacobian function: for an output of shape ``O`` and an input of shape ``I``
        the block has shape ``O + I``; the result has the outputs' pytree structure, each
        leaf the differentiated arguments' structure (a tuple over ``argnums`` when it is
        a tuple).
    """
    return _jacobian("jacrev", lambda f, a, has_aux: _TR.jacrev(f, a, has_aux=has_aux,
                                                                 chunk_size=chunk_size),
                     func, argnums, has_aux)


def jacfwd(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0,
           has_aux: bool = False, *, randomness: str = "error") -> Callable[..., Any]:
    """Jacobian of ``func`` with respect to ``argnums`` by forward mode (``torch.func.jacfwd``).

    Runs on ``ftrans.jacfwd`` (one batched JVP over the input basis).

    Parameters
    ----------
    func : callable
        Returns a pytree of Tensors (``(output, aux)`` with ``has_aux``).
    argnums : int or tuple of int, optional
        The argument(s) to differentiate with respect to.
    has_aux : bool, optional
        ``func`` returns ``(output, aux)``.
    randomness : {"error", "different", "same"}, optional
        torch.func's randomness option of the inner vmap.

    Returns
    -------
    callable
        The Jacobian function: same shapes and structure as :func:`jacrev`'s.

    Raises
    ------
    RuntimeError
        For another ``randomness``.
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    return _jacobian("jacfwd", _TR.jacfwd, func, argnums, has_aux)


def hessian(func: Callable[..., Any], argnums: int | tuple[int, ...] = 0
            ) -> Callable[..., Any]:
    """``jacfwd(jacrev(func, argnums), argnums)`` (``torch.func.hessian``).

    Parameters
    ----------
    func : callable
        Returns a scalar Tensor.
    argnums : int or tuple of int, optional
        The argument(s) to differentiate with respect to.

    Returns
    -------
    callable
        The Hessian function: for an input of shape ``I`` the Hessian has shape
        ``I + I``.
    """
    return jacfwd(jacrev(func, argnums), argnums)


def linearize(func: Callable[..., Any], *primals: Any) -> tuple[Any, Callable[..., Any]]:
    """``func``'s output and its Jacobian-vector product function (``torch.func.linearize``).

    Differs from PyTorch in cost only: each ``jvp_fn`` call evaluates
    ``compat.func.jvp`` at the primals again (PyTorch traces the linearized function
    once).

    Parameters
    ----------
    func : callable
        Takes the primals, returns Tensors.
    *primals : Tensor
        The point.

    Returns
    -------
    tuple
        ``(func(*primals), jvp_fn)``: ``jvp_fn(*tangents)`` (one per primal, its shape
        and dtype; ``RuntimeError`` otherwise) is the Jacobian-vector product at
        ``primals``.
    """
    out = func(*primals)

    def jvp_fn(*tangents: Any) -> Any:
        if len(tangents) != len(primals):
            raise RuntimeError(f"Expected {len(primals)} tangents, got {len(tangents)}")
        for p, t in zip(primals, tangents):
            if tuple(p.shape) != tuple(t.shape) or p.dtype != t.dtype:
                raise RuntimeError(f"linearize: expected a tangent of shape {tuple(p.shape)} "
                                   f"and dtype {p.dtype}, got {tuple(t.shape)} and {t.dtype}")
        return jvp(func, tuple(primals), tuple(tangents))[1]
    return out, jvp_fn
