"""Compat operations: forward through the primitives' kernels, backward through their rules.

Every operation computes its result with the primitives' ``impl`` (straight to the
kernel: no trace, no abstract evaluation) and -- in grad mode, when an operand
requires grad -- creates one graph node (see :mod:`.autograd.graph`):

* a *primitive node* when the PyTorch operation is one primitive (``sin``, ``mul``,
  ``sum``, ``x[idx]`` ...): its backward is the primitive's VJP rule, the rule the
  functional ``ftrans.vjp`` uses;
* a *composite node* when PyTorch shows one node for an operation that is a composition
  of primitives (``softmax`` -> ``SoftmaxBackward0``, ``sigmoid``, ``mean``, ``clamp``,
  ``max(dim)`` ...): its backward formula is written in ftrans primitive operations, so
  ``create_graph=True`` can differentiate it again.

Each node saves only what its formula reads, the way PyTorch does (``mul`` saves the
other operand of each operand that requires grad, ``exp``/``tanh``/``sqrt`` the result,
``sin``/``log`` the input ...), so in-place modification of anything else is allowed.

Type promotion follows PyTorch (see :mod:`._dtype`); the cotangent of an operand that
was converted for the computation is converted back to the operand's dtype.

In-place operations (``add_``, ``x[idx] = v`` ...) run the out-of-place operation,
write the result into the tensor's storage, bump its version counter and rebase its
history on the new node (:func:`_inplace`).

This module is the namespace of compat's operations (what ``Tensor``'s methods, the
``torch.*`` functions and autograd read); they are written in its parts, each above the
previous ones: :mod:`._opbase` (recording a node, operands and type promotion, the
builders of elementwise operations), :mod:`._compare_ops`, :mod:`._complex_ops`,
:mod:`._pointwise`, :mod:`._reductions`,
:mod:`._clamp_ops`, :mod:`._view_ops` (views and reshapes), :mod:`._shape_ops`
(indexing), :mod:`._join_ops` (cat/stack, matrix
products, conversions), :mod:`._inplace` and :mod:`._nn_ops`.
"""
from typing import Any

from . import (_opbase, _compare_ops, _complex_ops, _pointwise, _reductions, _clamp_ops,
               _view_ops, _shape_ops, _join_ops, _inplace, _nn_ops)

for _part in (_opbase, _compare_ops, _complex_ops, _pointwise, _reductions, _clamp_ops,
              _view_ops, _shape_ops, _join_ops, _inplace, _nn_ops):
    globals().update({k: v for k, v in vars(_part).items()
                      if not k.startswith("__") and k not in ("_fw_on", "_fwad")})
del _part


def __getattr__(name: str) -> Any:
    """``_fw_on``/``_fwad`` live in :mod:`._opbase` (autograd.forward_ad sets them there):
    read through, never copied."""
    if name in ("_fw_on", "_fwad"):
        return getattr(_opbase, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
