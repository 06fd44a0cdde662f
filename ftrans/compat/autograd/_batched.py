"""``autograd.grad(..., is_grads_batched=True)``: one backward pass under ``ftrans.vmap``.

PyTorch computes a batched ``grad`` by running its engine once under its vmap prototype
(``torch.autograd.grad``, ``is_grads_batched``).  The compat engine does the same with
``ftrans.vmap``: the leading dimension of every ``grad_output`` is the mapped axis, the
root gradients enter the engine as :class:`~ftrans.transforms.vmap.BatchTracer` values
and every backward formula -- a primitive's VJP rule or a composite formula, all written
in ftrans primitive operations -- binds its primitives through the batch trace, so each
node runs *once* on the whole batch (batched matmul, not a Python loop over rows).
Values that do not depend on the batch (the saved forward values) stay plain arrays and
go straight to the kernels.

Some graphs cannot run batched; for them :func:`batchable` says no (checked before
anything runs) and the caller loops over the batch, one backward per slice:

* ``create_graph=True`` (the recorded gradients are compat Tensors, which hold concrete
  arrays, not tracers);
* a hook that would run during the pass: a tensor hook (``register_hook``) or
  ``retain_grad`` on a tensor the pass goes through, a node pre-hook or hook, a hook on
  a leaf being differentiated (hooks receive compat Tensors and may have side effects);
* a node whose backward is not a formula over its saved values (e.g. a custom
  ``autograd.Function``, whose ``backward`` receives compat Tensors).

A formula that nevertheless turns the cotangent into a NumPy array
(``TracerArrayConversionError``) or a primitive without a batching rule
(``NotImplementedError`` from vmap) also falls back to the loop; the batched attempt
keeps the graph's buffers, so the loop can still run, and frees them afterwards when
``retain_graph`` is False.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.trace import TracerArrayConversionError
from ...transforms.vmap import vmap
from .._tensor import Size
from . import graph as G
from ._engine import run_backward, _dependencies, _needed

__all__ = ["check_batched_grad", "batchable", "run_batched"]


def check_batched_grad(i: int, gd: Any, od: Any, implicit: bool) -> None:
    """Check the batched ``grad_outputs[i]`` (array ``gd``; ``implicit``: the ``ones`` made
    for a None grad_output) against the output's array ``od``, with PyTorch's exception
    types: for a 0-d grad (nothing to map over) ``IndexError`` (PyTorch indexes it) or,
    for an implicit one, ``ValueError`` (PyTorch's vmap rejects it); ``IndexError`` for an
    empty batch; ``RuntimeError`` for a per-example shape that differs from the output's."""
    if gd.ndim == 0:
        hint = (f"With is_grads_batched=True, grad_outputs[{i}] needs a leading batch "
                "dimension")
        if implicit:
            raise ValueError("vmap(vjp, in_dims=0, ...)(<inputs>): Got in_dim=0 for some "
                             "input, but that input is a Tensor of dimensionality 0 so expected "
                             f"in_dim to satisfy 0 <= in_dim < 0. {hint} (the implicit "
                             "gradient of a 0-d output has none: pass grad_outputs).")
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         f"`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number. "
                         f"{hint}.")
    if gd.shape[0] == 0:
        raise IndexError("index 0 is out of bounds for dimension 0 with size 0 "
                         f"(grad_outputs[{i}] has an empty batch dimension)")
    if gd.shape[1:] != od.shape:
        raise RuntimeError(
            "If `is_grads_batched=True`, we interpret the first dimension of each grad_output "
            "as the batch dimension. The sizes of the remaining dimensions are expected to "
            f"match the shape of corresponding output, but a mismatch was detected: "
            f"grad_output[{i}] has a shape of {Size(gd.shape[1:])!r} and output[{i}] has a "
            f"shape of {Size(od.shape)!r}. If you only want some tensors in `grad_output` to "
            "be considered batched, consider using vmap.")


def _hooked(n: Any) -> bool:
    hk = n._hk
    return hk is not None and bool(hk.pre or hk.post or hk.rgh
                                   or (hk.tpre and any(hk.tpre.values())))


def _formula_node(n: Any) -> bool:
    """True when ``n``'s backward is a formula over its saved values (``OpNode._apply``:
    primitive VJP rules, composite formulas, views; ``CopySlices`` around one)."""
    ap = type(n)._apply if isinstance(n, G.OpNode) else None
    if ap is G.CopySlices._apply:
        return _formula_node(n._fn)
    return ap is G.OpNode._apply


def batchable(roots: Sequence[tuple[Any, int]], capture: Sequence[tuple[Any, int]]
              ) -> set[Any] | None:
    """The set of nodes the pass runs when the backward from ``roots`` to the ``capture``
    edges can run batched, None when it must loop (see the module docstring)."""
    root_nodes = [n for n, _ in roots if n is not None]
    deps = _dependencies(root_nodes)
    targets = {n for n, _ in capture if n is not None}
    needed = _needed(root_nodes, deps, targets)
    for n in needed:
        if _hooked(n) or not _formula_node(n):
            return None
    for n in targets:
        if _hooked(n):
            return None
        if type(n) is G.AccumulateGrad:
            x = n.variable._x
            if x is not None and x.hooks:
                return None
    return needed


def run_batched(roots: Sequence[tuple[Any, int]], grads: Sequence[Any],
                capture: Sequence[tuple[Any, int]], ran: set[Any], keep: bool
                ) -> list[Any] | None:
    """Gradients at the ``capture`` edges for the batched root gradients ``grads``
    (arrays whose leading dimension is the batch), in one engine pass under
    ``ftrans.vmap``: a list of arrays with the batch first (None where nothing arrived),
    or None when a formula turned out not to batch (the caller then loops).  ``ran``:
    the nodes the pass runs (from :func:`batchable`), freed afterwards unless ``keep``.
    """
    missing: list[bool] = []

    def body(*gs: Any) -> list[Any]:
        res = run_backward(roots, list(gs), True, False, capture=capture, batched=True)
        missing[:] = [r is None for r in res]
        return [r for r in res if r is not None]

    try:
        out = vmap(body)(*grads)
    except TracerArrayConversionError:
        return None
    except NotImplementedError as e:
        if "has no batching rule" not in str(e):
            raise
        return None
    if not keep:
        for n in ran:
            n._free()
    it = iter(out)
    return [None if m else next(it) for m in missing]
