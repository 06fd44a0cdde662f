"""What a compat Tensor holding a Tracer of an ftrans transform (``compat.func``) gives
when asked for a concrete value: ``.item()``, ``float()``/``int()``, ``bool()`` (Python
control flow), ``.tolist()``, ``.numpy()`` and boolean-mask indexing.

``torch.func``'s behaviour (PyTorch 2.13, checked against it in
``tests/compat/test_func_traced.py``) is the specification:

* under ``grad``/``vjp``/``jvp``/``jacrev``/``jacfwd`` the value exists -- it is the
  primal -- and these operations use it (``.item()`` is then a constant: no derivative
  flows through it), except ``.numpy()``, which raises ``RuntimeError`` ("Can't call
  numpy() on Tensor that requires grad ..." for a reverse-mode value, "Cannot access data
  pointer of Tensor that doesn't have storage" for a forward-mode one);
* under ``vmap`` there is one value per example, and each raises torch's ``RuntimeError``
  (messages below): ``.item()``/``float()``/``int()`` and control flow name themselves
  when the Tensor is the batched value itself and share one message when it is a
  transform nested in ``vmap`` (``vmap(grad(f))``); ``.tolist()``/``.numpy()`` have no
  storage; indexing with a batched boolean mask has a data-dependent shape.

A staged value (``ftrans.jit``) has no concrete value at all: its own
``TracerArrayConversionError`` stands.
"""
from __future__ import annotations

from typing import Any, cast

from ..core.trace import PrimalTracer, Tracer, current_trace

__all__ = ["concrete"]

_ITEM = ("vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
         "calling .item() on a Tensor, please try to rewrite what you're doing with other "
         "operations. If error is occurring somewhere inside PyTorch internals, please file a "
         "bug report.")
_CONTROL = ("vmap: It looks like you're attempting to use a Tensor in some data-dependent "
            "control flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues .")
_NESTED = ("vmap: It looks like you're either (1) calling .item() on a Tensor or (2) "
           "attempting to use a Tensor in some data-dependent control flow or (3) "
           "encountering this error in PyTorch internals. For (1): we don't support vmap over "
           "calling .item() on a Tensor, please try to rewrite what you're doing with other "
           "operations. For (2): we don't support data-dependent control flow in vmap yet, "
           "please file an issue at https://github.com/pytorch/pytorch/issues . For (3): "
           "please file an issue.")
_NO_STORAGE = "Cannot access data pointer of Tensor that doesn't have storage"
_REQUIRES_GRAD = ("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                  "instead.")
_MASK = ("vmap: We do not support batching operators that can support dynamic shape. "
         "Attempting to batch over indexing with a boolean mask.")


def _batched(d: Any) -> bool:
    return hasattr(d, "bdim") and hasattr(d, "val")


def concrete(data: Any, what: str) -> Any:
    """The concrete array behind ``data`` for the operation ``what`` ("item", "bool",
    "tolist", "numpy" or "mask"); ``data`` itself when it is not a Tracer or is a staged
    one (the caller's conversion then raises the Tracer's own error).

    Raises
    ------
    RuntimeError
        torch.func's error for ``what`` under ``vmap`` (see the module docstring), and
        for ``.numpy()`` of any traced value.
    """
    d = data
    outermost = True
    while isinstance(d, Tracer):
        if _batched(d):
            if what in ("tolist", "numpy"):
                raise RuntimeError(_NO_STORAGE)
            if what == "mask":
                raise RuntimeError(_MASK)
            if not outermost or current_trace() is not d._trace:  # type: ignore[attr-defined, unused-ignore]  # (core.trace declares it); vmap(grad(f)) ...
                raise RuntimeError(_NESTED)
            raise RuntimeError(_CONTROL if what == "bool" else _ITEM)
        if not isinstance(d, PrimalTracer):
            return data
        if what == "numpy" and outermost:
            raise RuntimeError(_NO_STORAGE if hasattr(d, "tangent") else _REQUIRES_GRAD)
        d = cast(Any, d).primal   # (every PrimalTracer subclass has one)
        outermost = False
    return d


def _state_value(data: Any) -> Any:
    """The value behind ``data`` below the derivative layers: ``data`` itself, a
    forward/reverse tracer's primal, a batch tracer's whole batch, or a staged
    (``compat.compile``, ``jit``) value itself.  A buffer update (running statistics)
    takes it: a staged one makes the program being staged write the buffer."""
    while isinstance(data, Tracer):
        if hasattr(data, "primal"):
            data = data.primal
        elif hasattr(data, "val") and hasattr(data, "bdim"):
            data = data.val
        else:
            return data
    return data


def _concrete(data: Any) -> Any:
    """The concrete array behind ``data`` for *value checks* (index bounds...): ``data``
    itself, a forward/reverse tracer's primal or a batch tracer's whole batch (every
    example's values: an elementwise check over it checks each example); None for a
    staged (jit) value, which has none."""
    data = _state_value(data)
    return None if isinstance(data, Tracer) else data
