"""compat operations under torch.nn.functional: erf, convolution, pooling, batch norm,
cross entropy."""
from __future__ import annotations


import numpy as np

from ._tensor import (Tensor, _make_plain)
from .autograd.grad_mode import _tls
from .autograd import graph as G
from .autograd.graph import node_class
from .autograd._composite import composite_class
from .. import primitives as P
from ..primitives._rules import no_trace as _no_trace
from ..core.trace import Tracer as _Tracer

from ._opbase import (SAVE_NONE, SAVE_X, _any_traced, _as_float, _compose, _convert, _ctype,
    _record, _refuse_complex, _save_cross, _tname, _unary)
from . import _opbase as _B
# =============================================================================== nn kernels
# The operations torch.nn.functional builds on that are primitives of their own: erf (for
# GELU), convolution and windowed pooling (ftrans.primitives.conv / .window).  Each is one
# node whose backward is the primitive's VJP rule.
from ..primitives.special import erf_p as _erf_p  # noqa: E402
from ..primitives.conv import conv_general_dilated_p as _conv_p  # noqa: E402
from ..primitives import window as _W  # noqa: E402
from ..kernels import nn_cpu as _NN  # noqa: E402

erf = _unary(_erf_p, "ErfBackward0", "x")
_composite = node_class   # the nn composites below move to ftrans.nn (issue 17)

_CONV_KEYS = ("window_strides", "padding", "lhs_dilation", "rhs_dilation",
              "feature_group_count")


def _convolution_bwd(node, ct, primals, ans, needs):
    """PyTorch's ConvolutionBackward0: the primitive's VJP rule for input and weight,
    ``sum(ct)`` over every axis but the channels for the bias."""
    p = node._params
    cols = p.get("_cols")
    x, w = primals[0], primals[1]
    if cols is not None and type(ct) is np.ndarray and ct.dtype == cols.dtype \
            and (not needs[0] or type(w) is np.ndarray) and _no_trace():
        # plain backward: one GEMM over the forward pass's im2col matrix (weight) and
        # one GEMM + col2im (input), kernels/nn_cpu.py
        geo = (p["window_strides"], p["padding"], p["rhs_dilation"])
        res = [_NN.conv2d_grad_input(ct, w, tuple(x.shape), *geo) if needs[0] else None,
               _NN.conv2d_grad_weight(ct, cols, tuple(w.shape)) if needs[1] else None]
    else:
        res = list(_conv_p.vjp(ct, None, primals[:2], needs[:2],
                               **{k: p[k] for k in _CONV_KEYS}))
    if len(needs) > 2 and needs[2]:
        res.append(P.reduce_sum(ct, (0,) + tuple(range(2, len(ct.shape)))))
    else:
        res.append(None)
    return res


_ConvolutionBackward0 = _composite("ConvolutionBackward0", ("input", "weight", "bias"),
                                   _convolution_bwd)


def convolution(input, weight, bias, stride, padding, dilation, groups,  # noqa: A002
                lhs_dilation=None):
    """Cross-correlation of ``input`` ``(N, C, *spatial)`` with ``weight``
    ``(O, C // groups, *window)`` plus ``bias`` ``(O,)`` (or None): one node whose
    input/weight gradients are the ``conv_general_dilated`` primitive's VJP rule.

    ``stride``/``dilation``/``lhs_dilation``: ints per spatial axis; ``padding``: ``(lo,
    hi)`` pairs.  Raises RuntimeError (as PyTorch) for mismatched dtypes or channels."""
    xd, wd = input._data, weight._data
    bd = None if bias is None else bias._data
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
    params = {"window_strides": tuple(stride), "padding": tuple(padding),
              "lhs_dilation": tuple(lhs_dilation) if lhs_dilation else (1,) * nsp,
              "rhs_dilation": tuple(dilation), "feature_group_count": int(groups)}
    sp = _W.window_out_shape(xd.shape[2:], wd.shape[2:], params["window_strides"],
                             params["padding"], params["lhs_dilation"], dilation)
    if 0 in sp and xd.size:
        padded = " x ".join(str(s + lo + hi) for s, (lo, hi) in zip(xd.shape[2:], padding))
        raise RuntimeError(f"Calculated padded input size per channel: ({padded}). Kernel "
                           f"size: ({' x '.join(map(str, wd.shape[2:]))}). Kernel size can't "
                           "be greater than actual input size")
    fast = None
    if _NN.conv2d_eligible(xd, wd, params["lhs_dilation"], groups) and _tls.grad \
            and not _B._fw_on:
        fast = _NN.conv2d_forward(xd, wd, params["window_strides"], params["padding"],
                                  params["rhs_dilation"])
    if fast is not None:
        out, cols = fast
        if weight.requires_grad:
            params["_cols"] = cols    # the weight gradient's GEMM operand (a residual)
    else:
        out = _conv_p.impl(xd, wd, **params)
    if bd is not None:
        out += bd.reshape((-1,) + (1,) * nsp)
    return _record(_ConvolutionBackward0, None, params, [input, weight, bias], [xd, wd, bd],
                   out, _save_cross)


_MAXPOOL_NODES = {k: node_class(f"MaxPool{k}DWithIndicesBackward0", ("self",))
                  for k in (1, 2, 3)}
_AVGPOOL_NODES = {k: node_class(f"AvgPool{k}DBackward0", ("self",)) for k in (1, 2, 3)}


def _window_params(nd, window, strides, padding, dilation):
    lead = (1,) * (nd - len(window))
    return {"window_dimensions": lead + tuple(window), "window_strides": lead + tuple(strides),
            "padding": ((0, 0),) * len(lead) + tuple(padding),
            "window_dilation": lead + tuple(dilation)}


def window_max(input, window, strides, padding, dilation):  # noqa: A002
    """Maximum over windows of the trailing axes of ``input`` (padding with -inf): the
    ``reduce_window_max`` primitive; the gradient goes to each window's first maximum."""
    d = input._data
    if d.dtype.kind == "c":
        _refuse_complex(input, kernel="max_pool2d")
    params = _window_params(d.ndim, window, strides, padding, dilation)
    r = None
    if _tls.grad and input.requires_grad and not _B._fw_on:
        r = _W.window_cpu.window_max(d, params["window_dimensions"], params["window_strides"],
                                     params["padding"], params["window_dilation"], True)
    if r is None:
        return _record(_MAXPOOL_NODES[len(window)], _W.reduce_window_max_p, params, [input],
                       [d], _W.reduce_window_max_p.impl(d, **params), SAVE_X)
    # one kernel pass gives the maxima and their indices; the plain backward scatters the
    # cotangent at the saved indices instead of searching the windows again
    out, idx = r
    return _record(_MAXPOOL_FAST_NODES[len(window)], _W.reduce_window_max_p,
                   dict(params, _idx=idx), [input], [d], out, SAVE_X)


def _maxpool_bwd(node, ct, primals, ans, needs):
    p = node._params
    x = primals[0]
    if type(ct) is np.ndarray and _no_trace():
        g = _W.window_cpu.scatter_flat(p["_idx"], ct, tuple(x.shape), x.dtype)
        if g is not None:
            return [g]
    return _W.reduce_window_max_p.vjp(ct, ans, primals, needs,
                                      **{k: v for k, v in p.items() if k != "_idx"})


_MAXPOOL_FAST_NODES = {k: node_class(f"MaxPool{k}DWithIndicesBackward0", ("self",),
                                     _maxpool_bwd) for k in (1, 2, 3)}


def window_argmax(input, window, strides, padding, dilation):  # noqa: A002
    """Flat index (within each trailing ``len(window)``-d plane) of each window's first
    maximum: ``max_pool``'s ``return_indices``."""
    d = input._data
    k = len(window)
    lead = d.shape[:d.ndim - k]
    plane = d.reshape((-1,) + d.shape[d.ndim - k:])
    params = _window_params(plane.ndim, window, strides, padding, dilation)
    idx = _W.reduce_window_argmax_p.impl(plane, **params)
    per = int(np.prod(plane.shape[1:], dtype=np.int64))
    idx = idx - (np.arange(plane.shape[0], dtype=np.int64) * per).reshape(
        (-1,) + (1,) * k)
    return _make_plain(idx.reshape(lead + idx.shape[1:]))


def window_sum(input, window, strides, padding, dilation=None):  # noqa: A002
    """Sum over windows of the trailing axes of ``input`` (zero padding): the
    ``reduce_window_sum`` primitive."""
    d = _as_float(input._data)
    dil = tuple(dilation) if dilation else (1,) * len(window)
    params = _window_params(d.ndim, window, strides, padding, dil)
    params["base_dilation"] = (1,) * d.ndim
    out = _W.reduce_window_sum_p.impl(d, **params)
    return _record(_AVGPOOL_NODES[len(window)], _W.reduce_window_sum_p, params, [input], [d],
                   out, SAVE_NONE)


def _bn_axes(nd):
    return (0,) + tuple(range(2, nd))


def _bn_view(v, nd):
    return P.reshape(v, (1, v.shape[0]) + (1,) * (nd - 2))


def _native_batch_norm_bwd(node, ct, primals, ans, needs):
    """PyTorch's batch-norm backward.  Training (batch statistics):
    ``dx = invstd (g - mean(g) - xhat mean(g xhat))`` with ``g = ct * weight``; eval
    (running statistics): ``dx = g invstd``; ``dweight = sum(ct xhat)``, ``dbias =
    sum(ct)``.  Plain backward reuses the forward's statistics; under create_graph they
    are recomputed from x with primitives, so second derivatives see their dependence
    on x."""
    x, w = primals[0], primals[1]
    p = node._params
    if type(ct) is np.ndarray and type(x) is np.ndarray and isinstance(p["mean"], np.ndarray) \
            and (w is None or (type(w) is np.ndarray and w.dtype == x.dtype)) and _no_trace():
        r = _NN.batch_norm_backward(x, ct, p["mean"], p["invstd"], w, p["training"])
        if r is not None:     # one numba kernel, two passes per channel (plain backward)
            return [r[0] if needs[0] else None, r[1] if needs[1] else None,
                    r[2] if needs[2] else None]
    nd = len(x.shape)
    axes = _bn_axes(nd)
    if p["training"] and not _no_trace():
        m = P.div(P.reduce_sum(x, axes), float(p["count"]))
        xc = P.sub(x, _bn_view(m, nd))
        var = P.div(P.reduce_sum(P.mul(xc, xc), axes), float(p["count"]))
        invstd = P.div(1.0, P.sqrt(P.add(var, p["eps"])))
    else:
        m, invstd = p["mean"], p["invstd"]
        xc = P.sub(x, _bn_view(m, nd) if not isinstance(m, np.ndarray) else
                   m.reshape((1, -1) + (1,) * (nd - 2)))
    inv = _bn_view(invstd, nd) if not isinstance(invstd, np.ndarray) else \
        invstd.reshape((1, -1) + (1,) * (nd - 2))
    xhat = P.mul(xc, inv)
    res = [None, None, None]
    if needs[1]:
        res[1] = P.reduce_sum(P.mul(ct, xhat), axes)
    if needs[2]:
        res[2] = P.reduce_sum(ct, axes)
    if needs[0]:
        g = ct if w is None else P.mul(ct, _bn_view(w, nd))
        if p["training"]:
            n = float(p["count"])
            mg = P.div(P.reduce_sum(g, axes), n)
            mgx = P.div(P.reduce_sum(P.mul(g, xhat), axes), n)
            g = P.sub(P.sub(g, _bn_view(mg, nd)), P.mul(xhat, _bn_view(mgx, nd)))
        res[0] = P.mul(g, inv)
    return res


_NativeBatchNormBackward0 = _composite("NativeBatchNormBackward0",
                                       ("input", "weight", "bias"), _native_batch_norm_bwd)


def native_batch_norm(input, weight, bias, running_mean, running_var, training, eps):  # noqa: A002
    """Batch normalization over every axis but 1 as one node (``torch.native_batch_norm``).

    Returns ``(output, batch_mean, batch_var)`` -- the statistics as NumPy arrays
    (biased variance; None in eval mode) for the caller's running-average update.
    ``training`` normalizes with the batch statistics, otherwise with ``running_mean``/
    ``running_var`` (tensors)."""
    d = _as_float(input._data)
    nd = d.ndim
    axes = _bn_axes(nd)
    shape = (1, d.shape[1]) + (1,) * (nd - 2)
    wd = None if weight is None else weight._data
    bd = None if bias is None else bias._data
    rm = None if running_mean is None else running_mean._data
    rv = None if running_var is None else running_var._data
    if _any_traced(d, wd, bd, rm, rv):   # under an ftrans transform: primitives
        return _batch_norm_traced(d, wd, bd, rm, rv, training, eps, axes, shape)
    fast = None
    if training and not _B._fw_on:
        fast = _NN.batch_norm_train(d, wd, bd, eps)
    if fast is not None:     # one numba kernel (kernels/nn_cpu.py)
        out, mean, var, invstd = fast
        count = d.size // d.shape[1]
    elif training:
        count = d.size // d.shape[1] if d.shape[1] else 0
        mean = d.mean(axis=axes)
        xc = d - mean.reshape(shape)
        var = np.mean(xc * xc, axis=axes)
    else:
        count = 0
        mean = running_mean._data.astype(d.dtype, copy=False)
        var = running_var._data.astype(d.dtype, copy=False)
        xc = d - mean.reshape(shape)
    if fast is None:
        invstd = (1.0 / np.sqrt(var + eps)).astype(d.dtype, copy=False)
        scale = invstd if weight is None else invstd * weight._data
        out = xc * scale.reshape(shape)
        if bias is not None:
            out += bias._data.reshape(shape)
        out = np.asarray(out, d.dtype)
    params = {"training": bool(training), "eps": float(eps), "count": count, "mean": mean,
              "invstd": invstd}
    t = _record(_NativeBatchNormBackward0, None, params, [input, weight, bias], [d, wd, bd],
                out, (3, False))
    return t, (mean if training else None), (var if training else None)


def _cross_entropy_bwd(node, ct, primals, ans, needs):
    """``d loss / d x = ct * rowscale * (softmax(x) - onehot(target))`` (rowscale:
    ``valid / count`` for 'mean', ``valid`` for 'sum'; ``valid`` = target !=
    ignore_index).  Plain backward: NumPy from the forward's logsumexp; under
    create_graph / forward AD: primitives (softmax shifted by the saved row maxima, which
    it does not depend on), so higher derivatives see softmax's dependence on x."""
    p = node._params
    x = primals[0]
    rows, safe, scale = p["rows"], p["safe"], p["rowscale"]
    if type(ct) is np.ndarray and type(x) is np.ndarray and _no_trace():
        g = np.exp(x - p["lse"][:, None])
        g[rows, safe] -= 1
        g *= (scale * ct)[:, None]
        return [g]
    e = P.exp(P.sub(x, p["shift"][:, None]))
    sm = P.div(e, P.reshape(P.reduce_sum(e, (1,)), (x.shape[0], 1)))
    onehot = np.zeros(x.shape, x.dtype)
    onehot[rows, safe] = 1
    return [P.mul(P.sub(sm, onehot), P.mul(ct, scale[:, None]))]


_CrossEntropyBackward = _composite("NllLossBackward0", ("self",), _cross_entropy_bwd)


def cross_entropy_indices(input, target, ignore_index, reduction):  # noqa: A002
    """``cross_entropy`` of logits ``input (N, C)`` (float32/float64) and class indices
    ``target (N,)`` with ``reduction`` 'mean' or 'sum', no class weights or label
    smoothing, as one node (log-softmax and NLL fused: one pass of NumPy per step
    instead of about ten nodes).  Same values as ``nll_loss(log_softmax(input))``;
    IndexError (PyTorch's message) for a target out of range.  None for operands that
    are not NumPy arrays (the caller's general path)."""
    d = input._data
    if type(d) is not np.ndarray or type(target._data) is not np.ndarray:
        return None
    t = target._data
    N, C = d.shape
    valid = t != ignore_index
    safe = np.where(valid, t, 0)
    tv = t[valid]
    if tv.size and (tv.min() < 0 or tv.max() >= C):
        raise IndexError(f"Target {int(tv.max() if tv.max() >= C else tv.min())} is out of "
                         f"bounds.")
    rows = np.arange(N)
    if N:
        m = d.max(axis=1)
        lse = (m + np.log(np.sum(np.exp(d - m[:, None]), axis=1))).astype(d.dtype, copy=False)
    else:
        m = lse = np.zeros(0, d.dtype)
    w = valid.astype(d.dtype)
    loss = -((d[rows, safe] - lse) * w).sum()
    if reduction == "mean":
        count = w.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = loss / count
            scale = w / count
    else:
        scale = w
    out = np.asarray(loss, d.dtype)
    params = {"rows": rows, "safe": safe, "rowscale": scale.astype(d.dtype, copy=False),
              "lse": lse, "shift": m}
    return _record(_CrossEntropyBackward, None, params, [input], [d], out, SAVE_X)


def _batch_norm_traced(d, wd, bd, rm, rv, training, eps, axes, shape):
    """:func:`native_batch_norm` on traced values (no node: the transform
    differentiates)."""
    if training:
        count = d.size // d.shape[1] if d.shape[1] else 0
        mean = P.div(P.reduce_sum(d, axes), d.dtype.type(count))
        xc = P.sub(d, P.reshape(mean, shape))
        var = P.div(P.reduce_sum(P.mul(xc, xc), axes), d.dtype.type(count))
    else:
        mean, var = rm, rv
        xc = P.sub(d, P.reshape(mean, shape))
    invstd = P.div(d.dtype.type(1), P.sqrt(P.add(var, d.dtype.type(eps))))
    scale = invstd if wd is None else P.mul(invstd, wd)
    out = P.mul(xc, P.reshape(scale, shape))
    if bd is not None:
        out = P.add(out, P.reshape(bd, shape))
    return _make_plain(out), (mean if training else None), (var if training else None)


def _linear_fn(x, w, b):
    out = P.dot_general(x, w, (((x.ndim - 1,), (1,)), ((), ())))
    return out if b is None else P.add(out, b)


_AddmmBackward0 = composite_class("AddmmBackward0", ("self", "mat1", "mat2"))
_LinearMmBackward0 = composite_class("MmBackward0", ("self", "mat2"))


def linear(input, weight, bias=None):  # noqa: A002
    """``input @ weight.T + bias`` as one node (``torch.nn.functional.linear``):
    ``input (*, in)``, ``weight (out, in)``, ``bias (out,)``.  RuntimeError (PyTorch's
    message) for mismatched shapes or dtypes."""
    xd, wd = input._data, weight._data
    if wd.ndim != 2 or xd.ndim == 0 or xd.shape[-1] != wd.shape[1]:
        a = "x".join(map(str, xd.shape[-2:] if xd.ndim > 1 else (1,) + xd.shape))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({a} and "
                           f"{wd.shape[1] if wd.ndim == 2 else '?'}x"
                           f"{wd.shape[0] if wd.ndim else '?'})")
    bd = None if bias is None else bias._data
    if xd.dtype != wd.dtype or (bd is not None and bd.dtype != xd.dtype):
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_ctype(xd.dtype)} != {_ctype(wd.dtype)}")
    cls = _AddmmBackward0 if bias is not None else _LinearMmBackward0
    return _compose(cls, _linear_fn, [input, weight, bias], [xd, wd, bd], mask=_save_cross)


# ====================================================== convolution / pooling under traces
# ``compat.func`` runs compat operations on Tracers of ftrans transforms (no graph is
# recorded then: the transform differentiates/batches).  The eager functions above call
# the kernels directly; on traced values these versions bind the same primitives.
def _convolution_traced(input, weight, bias, stride, padding, dilation, groups,  # noqa: A002
                        lhs_dilation=None):
    xd, wd = input._data, weight._data
    if xd.ndim != wd.ndim or xd.dtype != wd.dtype:
        return _convolution_eager(input, weight, bias, stride, padding, dilation, groups,
                                  lhs_dilation)   # raises PyTorch's error before computing
    nsp = xd.ndim - 2
    out = _conv_p.bind(xd, wd, window_strides=tuple(stride), padding=tuple(padding),
                       lhs_dilation=tuple(lhs_dilation) if lhs_dilation else (1,) * nsp,
                       rhs_dilation=tuple(dilation), feature_group_count=int(groups))
    if bias is not None:
        out = P.add(out, P.reshape(bias._data, (-1,) + (1,) * nsp))
    return _make_plain(out)


def _window_max_traced(input, window, strides, padding, dilation):  # noqa: A002
    d = input._data
    params = _window_params(d.ndim, window, strides, padding, dilation)
    return _make_plain(_W.reduce_window_max_p.bind(d, **params))


def _window_sum_traced(input, window, strides, padding, dilation=None):  # noqa: A002
    d = _as_float(input._data)
    dil = tuple(dilation) if dilation else (1,) * len(window)
    params = _window_params(d.ndim, window, strides, padding, dil)
    params["base_dilation"] = (1,) * d.ndim
    return _make_plain(_W.reduce_window_sum_p.bind(d, **params))


def _dispatch_traced(eager, traced):
    def op(input, weight, *args, **kwargs):  # noqa: A002
        for a in (input, weight) + args:   # (``any`` is the tensor op in this module)
            if isinstance(a, Tensor) and isinstance(a._data, _Tracer):
                return traced(input, weight, *args, **kwargs)
        return eager(input, weight, *args, **kwargs)
    op.__name__, op.__doc__, op.__wrapped__ = eager.__name__, eager.__doc__, eager
    return op


_convolution_eager = convolution
convolution = _dispatch_traced(convolution, _convolution_traced)
window_max = _dispatch_traced(window_max, _window_max_traced)
window_sum = _dispatch_traced(window_sum, _window_sum_traced)

G._convert = _convert   # see autograd.graph._convert
