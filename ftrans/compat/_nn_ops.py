"""compat operations under torch.nn.functional: erf, convolution, pooling, batch norm,
cross entropy."""
from __future__ import annotations

from typing import Any

import numpy as np

from ._tensor import Tensor, _make_plain
from .autograd import graph as G
from .autograd.graph import node_class
from .autograd._composite import composite_class, residual_class
from .. import primitives as P

from ._opbase import (SAVE_NONE, _as_float, _compose, _convert, _ctype, _custom, _k, _record,
                      _refuse_complex, _save_cross, _tname, _unary, unary_doc)
# =============================================================================== nn kernels
# torch.nn.functional's heavy operations are ftrans.nn's: convolution, max pooling, batch
# norm and the fused log-softmax + NLL are ftrans.custom_vjp functions whose forward keeps
# its by-products (im2col columns, argmax indices, inverse std, log-sum-exp) as residuals;
# compat records one node for each (:func:`._opbase._custom`) and adapts the arguments.
from ..primitives.special import erf_p as _erf_p  # noqa: E402
from ..primitives import window as _W  # noqa: E402
from ..nn import FUSED as _FUSED  # noqa: E402

erf = _unary(_erf_p, "ErfBackward0", "x", doc=unary_doc(
    "erf", "the error function ``2/sqrt(pi) * integral of exp(-t**2) from 0 to input``."))

_ConvolutionBackward0 = residual_class("ConvolutionBackward0",
                                       ("_params", "input", "weight", "bias"),
                                       edge_idx=(1, 2, 3))


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any,  # noqa: A002
                padding: Any, dilation: Any, groups: int, lhs_dilation: Any = None) -> Tensor:
    """Cross-correlation of ``input`` ``(N, C, *spatial)`` with ``weight``
    ``(O, C // groups, *window)`` plus ``bias`` ``(O,)`` (or None): one node,
    ``ftrans.nn``'s fused convolution (``FUSED["conv"]``).

    ``stride``/``dilation``/``lhs_dilation``: ints per spatial axis; ``padding``: ``(lo,
    hi)`` pairs.  Raises RuntimeError (as PyTorch) for mismatched dtypes or channels."""
    xd, wd = input._data, weight._data
    bd: Any = None if bias is None else bias._data
    if xd.dtype != wd.dtype or (bd is not None and bd.dtype != xd.dtype):
        other = wd.dtype if xd.dtype != wd.dtype else bd.dtype
        what = "weight" if xd.dtype != wd.dtype else "bias"
        raise RuntimeError(f"Input type ({_tname(xd.dtype)}) and {what} type "
                           f"({_tname(other)}) should be the same")
    if xd.ndim != wd.ndim:
        raise RuntimeError(f"Expected {wd.ndim - 1}D (unbatched) or {wd.ndim}D (batched) "
                           f"input to conv{wd.ndim - 2}d, but got input of size: "
                           f"{list(xd.shape)}")
    if xd.shape[1] != wd.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(wd.shape)}, expected "
                           f"input{list(xd.shape)} to have {wd.shape[1] * groups} channels, "
                           f"but got {xd.shape[1]} channels instead")
    nsp = xd.ndim - 2
    lhs = tuple(lhs_dilation) if lhs_dilation and any(v != 1 for v in lhs_dilation) else None
    sp = _W.window_out_shape(xd.shape[2:], wd.shape[2:], tuple(stride), tuple(padding),
                             lhs or (1,) * nsp, tuple(dilation))
    if 0 in sp and xd.size:
        padded = " x ".join(str(s + lo + hi) for s, (lo, hi) in zip(xd.shape[2:], padding))
        raise RuntimeError(f"Calculated padded input size per channel: ({padded}). Kernel "
                           f"size: ({' x '.join(map(str, wd.shape[2:]))}). Kernel size can't "
                           "be greater than actual input size")
    params = (tuple(stride), tuple(tuple(p) for p in padding), tuple(dilation), int(groups),
              lhs)
    return _custom(_ConvolutionBackward0, _FUSED["conv"], [params, input, weight, bias],
                   [params, xd, wd, bd])[0]


_MAXPOOL_NODES = {k: residual_class(f"MaxPool{k}DWithIndicesBackward0", ("_params", "self"),
                                    edge_idx=(1,)) for k in (1, 2, 3)}
_AVGPOOL_NODES = {k: node_class(f"AvgPool{k}DBackward0", ("self",)) for k in (1, 2, 3)}


def _window_params(nd: int, window: Any, strides: Any, padding: Any, dilation: Any) -> Any:
    lead = (1,) * (nd - len(window))
    return {"window_dimensions": lead + tuple(window), "window_strides": lead + tuple(strides),
            "padding": ((0, 0),) * len(lead) + tuple(tuple(p) for p in padding),
            "window_dilation": lead + tuple(dilation)}


def window_max(input: Tensor, window: Any, strides: Any, padding: Any,  # noqa: A002
               dilation: Any) -> Tensor:
    """Maximum over windows of the trailing axes of ``input`` (padding with -inf):
    ``ftrans.nn``'s fused max pooling (``FUSED["max_pool"]``: the forward keeps each
    window's argmax, the backward scatters there); the gradient goes to each window's
    first maximum."""
    d = input._data
    if d.dtype.kind == "c":
        _refuse_complex(input, kernel="max_pool2d")
    p = _window_params(d.ndim, window, strides, padding, dilation)
    params = (p["window_dimensions"], p["window_strides"], p["padding"], p["window_dilation"],
              tuple(d.shape))
    return _custom(_MAXPOOL_NODES[len(window)], _FUSED["max_pool"], [params, input],
                   [params, d])[0]


def window_argmax(input: Tensor, window: Any, strides: Any, padding: Any,  # noqa: A002
                  dilation: Any) -> Tensor:
    """Flat index (within each trailing ``len(window)``-d plane) of each window's first
    maximum: ``max_pool``'s ``return_indices``."""
    d = input._data
    k = len(window)
    lead = d.shape[:d.ndim - k]
    plane = d.reshape((-1,) + d.shape[d.ndim - k:])
    params = _window_params(plane.ndim, window, strides, padding, dilation)
    idx = _k(_W.reduce_window_argmax_p, plane)(plane, **params)
    per = int(np.prod(plane.shape[1:], dtype=np.int64))
    idx = idx - (np.arange(plane.shape[0], dtype=np.int64) * per).reshape(
        (-1,) + (1,) * k)
    return _make_plain(idx.reshape(lead + idx.shape[1:]))


def window_sum(input: Tensor, window: Any, strides: Any, padding: Any,  # noqa: A002
               dilation: Any = None) -> Tensor:
    """Sum over windows of the trailing axes of ``input`` (zero padding): the
    ``reduce_window_sum`` primitive."""
    d = _as_float(input._data)
    dil = tuple(dilation) if dilation else (1,) * len(window)
    params = _window_params(d.ndim, window, strides, padding, dil)
    params["base_dilation"] = (1,) * d.ndim
    out = _k(_W.reduce_window_sum_p, d)(d, **params)
    return _record(_AVGPOOL_NODES[len(window)], _W.reduce_window_sum_p, params, [input], [d],
                   out, SAVE_NONE)


def _bn_eval_fn(x: Any, w: Any, b: Any, mean: Any, var: Any, eps: float) -> Any:
    """Batch norm with given statistics (eval mode): ``(x - mean) / sqrt(var + eps) * w +
    b`` over axis 1."""
    shape = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    scale = P.div(x.dtype.type(1), P.sqrt(P.add(var, x.dtype.type(eps))))  # type: ignore[attr-defined]  # (an op-table row)
    if w is not None:
        scale = P.mul(scale, w)
    out = P.mul(P.sub(x, P.reshape(mean, shape)), P.reshape(scale, shape))
    return out if b is None else P.add(out, P.reshape(b, shape))


_BN_TRAIN = residual_class("NativeBatchNormBackward0", ("eps", "input", "weight", "bias"),
                           edge_idx=(1, 2, 3))
_BN_EVAL = composite_class("NativeBatchNormBackward0", ("input", "weight", "bias"),
                           edge_idx=(0, 1, 2))


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,  # noqa: A002
                      running_mean: Any, running_var: Any,
                      training: bool, eps: float) -> Any:
    """Batch normalization over every axis but 1 as one node (``torch.native_batch_norm``).

    Returns ``(output, batch_mean, batch_var)`` -- the statistics (biased variance; None
    in eval mode) for the caller's running-average update.  ``training`` normalizes with
    the batch statistics (``ftrans.nn``'s fused batch norm, ``FUSED["batch_norm"]``),
    otherwise with ``running_mean``/``running_var`` (tensors)."""
    d = _as_float(input._data)
    C = d.shape[1]
    wd = None if weight is None else weight._data
    bd = None if bias is None else bias._data
    if not training:
        mean = running_mean._data.astype(d.dtype, copy=False)
        var = running_var._data.astype(d.dtype, copy=False)
        t = _compose(_BN_EVAL, _bn_eval_fn, [input, weight, bias, mean, var],
                     [d, wd, bd, mean, var], {"eps": float(eps)})
        return t, None, None
    # the fused function takes arrays: 1 and 0 for a missing weight and bias
    wa = np.ones(C, d.dtype) if wd is None else wd
    ba = np.zeros(C, d.dtype) if bd is None else bd
    t, (_, mean, var) = _custom(_BN_TRAIN, _FUSED["batch_norm"],
                                [float(eps), input, weight if wd is not None else wa,
                                 bias if bd is not None else ba],
                                [float(eps), d, wa, ba], post=0)
    return t, mean, var


_CrossEntropyBackward = residual_class("NllLossBackward0", ("self", "target", "weight"),
                                       edge_idx=(0,))


def cross_entropy_indices(input: Tensor, target: Tensor, ignore_index: int,  # noqa: A002
                          reduction: str) -> Tensor | None:
    """``cross_entropy`` of logits ``input (N, C)`` (float32/float64) and class indices
    ``target (N,)`` with ``reduction`` 'mean' or 'sum', no class weights or label
    smoothing, as one node: ``ftrans.nn``'s fused log-softmax + NLL
    (``FUSED["nll_of_logits"]``, summed with row weights ``1/count`` for 'mean').  Same
    values as ``nll_loss(log_softmax(input))``; IndexError (PyTorch's message) for a
    target out of range.  None for operands that are not NumPy arrays (the caller's
    general path)."""
    d = input._data
    if type(d) is not np.ndarray or type(target._data) is not np.ndarray:
        return None
    t = target._data
    C = d.shape[1]
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    tv = t[valid]
    if tv.size and (tv.min() < 0 or tv.max() >= C):
        raise IndexError(f"Target {int(tv.max() if tv.max() >= C else tv.min())} is out of "
                         f"bounds.")
    coef = valid.astype(d.dtype)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            coef = coef / coef.sum()
    return _custom(_CrossEntropyBackward, _FUSED["nll_of_logits"], [input, safe, coef],
                   [d, safe, coef], post="sum")[0]


def _linear_fn(x: Any, w: Any, b: Any) -> Any:
    out = P.dot_general(x, w, (((x.ndim - 1,), (1,)), ((), ())))
    return out if b is None else P.add(out, b)


_AddmmBackward0 = composite_class("AddmmBackward0", ("self", "mat1", "mat2"))
_LinearMmBackward0 = composite_class("MmBackward0", ("self", "mat2"))


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:  # noqa: A002
    """``input @ weight.T + bias`` as one node (``torch.nn.functional.linear``):
    ``input (*, in)``, ``weight (out, in)``, ``bias (out,)``.  RuntimeError (PyTorch's
    message) for mismatched shapes or dtypes."""
    xd, wd = input._data, weight._data
    if wd.ndim != 2 or xd.ndim == 0 or xd.shape[-1] != wd.shape[1]:
        a = "x".join(map(str, xd.shape[-2:] if xd.ndim > 1 else (1,) + xd.shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a} and "
                           f"{wd.shape[1] if wd.ndim == 2 else '?'}x"
                           f"{wd.shape[0] if wd.ndim else '?'})")
    bd: Any = None if bias is None else bias._data
    if xd.dtype != wd.dtype or (bd is not None and bd.dtype != xd.dtype):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_ctype(xd.dtype)} != {_ctype(wd.dtype)}")
    cls = _AddmmBackward0 if bias is not None else _LinearMmBackward0
    return _compose(cls, _linear_fn, [input, weight, bias], [xd, wd, bd], mask=_save_cross)


G._convert = _convert  # type: ignore[assignment, unused-ignore]  # see autograd.graph._convert
