"""Argument checks of ``torch.nn.functional``'s convolutions, poolings and norms, raising
PyTorch 2.13's exception types and messages (checked against torch's ``op_db`` error
inputs in ``tests/compat/test_opdb.py``).  Each function returns nothing and raises on
bad input; the functional layers call them before computing."""
from __future__ import annotations

import numbers
from collections.abc import Callable, Sequence
from typing import Any

from ftrans.compat import Tensor
from ftrans.compat._opbase import _ctype

__all__ = ["conv", "pool", "divisor", "adaptive", "group_norm", "hardtanh", "embedding"]


def _tuple(v: Any, n: int) -> tuple[int, ...]:
    if isinstance(v, numbers.Integral):
        return (int(v),) * n
    return tuple(v)


def conv(fname: str, nsp: int, input: Tensor, weight: Tensor, bias: Tensor | None,  # noqa: A002
         stride: Any, padding: Any, dilation: Any, groups: int) -> None:
    for other, what in ((weight, "weight"), (bias, "bias")):
        if other is not None and other.dtype != input.dtype:
            raise RuntimeError(f"Input type ({_ctype(input._data.dtype)}) and {what} type "
                               f"({_ctype(other._data.dtype)}) should be the same")
    if any(s <= 0 for s in _tuple(stride, nsp)):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in _tuple(padding, nsp)):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in _tuple(dilation, nsp)):
        raise RuntimeError("dilation should be greater than zero")
    if weight.dim() < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if input.dim() not in (weight.dim(), weight.dim() - 1):
        raise RuntimeError(f"Expected {weight.dim() - 1}D (unbatched) or {weight.dim()}D "
                           f"(batched) input to {fname}, but got input of size: "
                           f"{list(input.shape)}")
    if weight.shape[0] < groups or weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead"
                           if weight.shape[0] < groups else
                           f"Given groups={groups}, expected weight to be divisible by "
                           f"{groups} at dimension 0, but got weight of size "
                           f"{list(weight.shape)} instead")
    if padding == "same" and any(s != 1 for s in _tuple(stride, nsp)):
        raise RuntimeError("padding='same' is not supported for strided convolutions")


def pool(fname: str, nsp: int, input: Tensor, kernel_size: Any, stride: Any,  # noqa: A002
         padding: Any, dilation: Any = 1) -> None:
    ks = _tuple(kernel_size, nsp)
    if any(k <= 0 for k in ks):
        raise RuntimeError(f"{fname}() kernel_size must be greater than zero, but got "
                           f"{kernel_size}")
    if stride is not None and not (isinstance(stride, (list, tuple)) and len(stride) == 0):
        if any(s <= 0 for s in _tuple(stride, nsp)):
            raise RuntimeError(f"{fname}() stride must be greater than zero, but got {stride}")
    dl = _tuple(dilation, nsp)
    if any(d <= 0 for d in dl):
        raise RuntimeError(f"{fname}() dilation must be greater than zero, but got {dilation}")
    pd = _tuple(padding, nsp)
    if any(p < 0 for p in pd):
        raise RuntimeError(f"pad must be non-negative, but got pad: {padding}")
    for k, p, d in zip(ks, pd, dl):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    shape = tuple(input.shape)
    if len(shape) not in (nsp + 1, nsp + 2) or any(s == 0 for s in shape[len(shape) - nsp - 1:]):
        raise RuntimeError(f"{fname}: Expected {nsp + 1}D or {nsp + 2}D (batch mode) tensor "
                           "with optional 0 dim batch size for input, but got: "
                           f"{list(shape)}")
    if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0):
        st = ks
    else:
        st = _tuple(stride, nsp)
    for L, k, s, p, d in zip(shape[-nsp:], ks, st, pd, dl):
        o = (L + 2 * p - d * (k - 1) - 1) // s + 1
        if o < 1 and fname == "max_pool1d":   # (max_pool2d: "Output size is too small")
            raise RuntimeError(f"{fname}() Invalid computed output size: {o}")


def divisor(divisor_override: int | None) -> None:
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")


def adaptive(fname: str, nsp: int, input: Tensor, output_size: Any) -> None:  # noqa: A002
    if input.dim() < nsp + 1:
        raise ValueError(f"Input dimension should be at least {nsp + 1}")
    if isinstance(output_size, (list, tuple)):
        if len(output_size) != nsp:
            raise RuntimeError(f"{fname}() argument 'output_size' should contain {nsp} int"
                               f"{'s' if nsp > 1 else ''} (got {len(output_size)})"
                               if nsp == 1 else f"{fname}: output_size must be {nsp}")
        sizes = [s for s in output_size if s is not None]
    else:
        sizes = [] if output_size is None else [output_size]
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{fname}: elements of output_size must be greater than or equal "
                           f"to 0 but received {list(output_size)}")


def group_norm(input: Tensor, num_groups: int) -> None:  # noqa: A002
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    if input.shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")


def hardtanh(min_val: float, max_val: float) -> None:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")


def embedding(weight: Tensor) -> None:
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")


def _ntuple(n: int, name: str = "argument") -> Callable[[Any], tuple[int, ...]]:
    def parse(x: Any) -> tuple[int, ...]:
        if isinstance(x, (list, tuple)):
            if len(x) == 1 and n > 1:
                return tuple(x) * n
            if len(x) != n:
                raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {x}")
            return tuple(int(a) for a in x)
        return (int(x),) * n
    return parse


def _check_tensor(x: Any, fname: str, what: str = "input") -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{fname}(): argument '{what}' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
