"""Linear maps, convolution and pooling in PyTorch's layouts: inputs ``(N, C,
*spatial)`` (NCHW), convolution weights ``(out, in / groups, *kernel)``, linear weights
``(out, in)``.  Each is written once as a composition of primitives
(``conv_general_dilated``, ``reduce_window_max``/``_sum``, ``dot_general``, gathers).

Fused paths (``custom_vjp``, contract in :mod:`ftrans.nn`):

* :func:`conv` (2 spatial axes, one group, NumPy float operands): the forward pass builds
  the im2col matrix once (``kernels.nn_cpu.conv2d_forward``) and keeps it as a residual;
  the weight gradient is one GEMM of the cotangent with it, the input gradient one GEMM +
  col2im.  Otherwise the backward pass is ``conv_general_dilated``'s VJP rule.
* :func:`max_pool`: the forward pass saves the flat index of each window's first maximum
  (``kernels.window_cpu.window_max``); the backward pass scatters the cotangent there
  (numba ``scatter_flat`` eagerly, the ``scatter_add`` primitive otherwise).

Output sizes, ``ceil_mode``, the padding limits and the average-pool divisors follow
PyTorch's ``pooling_output_shape`` and ``avg_pool2d`` kernels.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import primitives as P
from ..kernels import nn_cpu as _K
from ..kernels import window_cpu as _WK
from ..primitives.conv import conv_general_dilated_p as _conv_p, check_groups
from ..primitives.indexing import scatter_add as _scatter_add
from ..numpy import _funcs as F
from ..numpy._indexing import take_along_axis as _take_along_axis
from ..transforms import custom_vjp
from ..typing import Array, ArrayLike
from ._util import apply, as_float, eager, ntuple

#: An int, or one int per spatial axis (PyTorch's ``_size_any_t``).
_Size = int | Sequence[int]
_ConvParams = tuple[Any, ...]

__all__ = ["linear", "conv", "max_pool", "avg_pool", "adaptive_avg_pool",
           "adaptive_max_pool"]


def linear(x: ArrayLike, weight: ArrayLike, bias: ArrayLike | None = None) -> Array:
    """Affine map ``x @ weight.T + bias`` (``torch.nn.functional.linear``).

    Parameters
    ----------
    x : ArrayLike
        Shape ``(*, in)``.
    weight : ArrayLike
        Shape ``(out, in)``.
    bias : ArrayLike, optional
        Shape ``(out,)``.

    Returns
    -------
    Array
        Shape ``(*, out)``.

    Raises
    ------
    ValueError
        For mismatched shapes.
    """
    x, weight = as_float(x), as_float(weight, "weight")
    if len(weight.shape) != 2 or len(x.shape) == 0 or x.shape[-1] != weight.shape[1]:
        raise ValueError(f"linear: x (*, in) and weight (out, in) must agree on 'in'; got "
                         f"x {tuple(x.shape)} and weight {tuple(weight.shape)}")
    out = P.dot_general(x, weight, (((len(x.shape) - 1,), (1,)), ((), ())))
    if bias is not None:
        out = P.add(out, as_float(bias, "bias"))
    return out


# ------------------------------------------------------------------------- convolution
def _conv_params(params: _ConvParams) -> dict[str, Any]:
    strides, padding, dilation, groups, lhs = params
    return dict(window_strides=strides, padding=padding,
                lhs_dilation=lhs or (1,) * len(strides), rhs_dilation=dilation,
                feature_group_count=groups)


def _fast_conv(params: _ConvParams, x: Array, w: Array) -> bool:
    strides, padding, dilation, groups, lhs = params
    return eager(x, w) and _K.conv2d_eligible(x, w, lhs or (1, 1), groups)


def _bias_axes(nd: int) -> tuple[int, ...]:
    return (0,) + tuple(range(2, nd))


def _with_bias(out: Array, b: Array | None) -> Array:
    if b is None:
        return out
    return P.add(out, P.reshape(b, (b.shape[0],) + (1,) * (len(out.shape) - 2)))


def _conv_fun(params: _ConvParams, x: Array, w: Array, b: Array | None) -> Array:
    return _with_bias(_conv_p.bind(x, w, **_conv_params(params)), b)   # (impl: im2col kernel)


def _conv_fwd(params: _ConvParams, x: Array, w: Array, b: Array | None
              ) -> tuple[Array, tuple[Any, ...]]:
    if _fast_conv(params, x, w) and (b is None or type(b) is np.ndarray):
        r = _K.conv2d_forward(x, w, params[0], params[1], params[2])
        if r is not None:
            out = r[0] if b is None else r[0] + b.reshape((-1,) + (1,) * (x.ndim - 2))
            return out, (x, w, r[1], b is not None, None)
    # the primitive's reverse-mode forward: under a trace, im2col + GEMM with the
    # primitive's patches kept for the backward (ftrans.primitives.conv._conv_vjp_fwd)
    assert _conv_p.vjp_fwd is not None
    out, res = _conv_p.vjp_fwd(x, w, **_conv_params(params))
    return _with_bias(out, b), (x, w, None, b is not None, res[2] if len(res) > 2 else None)


def _conv_bwd(params: _ConvParams, res: tuple[Any, ...], g: Array) -> tuple[Any, ...]:
    x, w, cols, has_bias, patches = res
    gb = P.reduce_sum(g, _bias_axes(len(g.shape))) if has_bias else None
    if cols is not None and eager(x, w, g) and g.dtype == cols.dtype:
        strides, padding, dilation = params[:3]
        g = np.ascontiguousarray(g)
        return (_K.conv2d_grad_input(g, w, tuple(x.shape), strides, padding, dilation),
                _K.conv2d_grad_weight(g, cols, tuple(w.shape)), gb)
    vjp = _conv_p.vjp
    assert vjp is not None          # the convolution primitive has its VJP rule
    kept = (x, w) if patches is None else (x, w, patches)
    return tuple(vjp(g, None, kept, (True, True), **_conv_params(params))) + (gb,)


_conv = custom_vjp(_conv_fun, nondiff_argnums=(0,))
_conv.defvjp(_conv_fwd, _conv_bwd)


def _conv_padding(padding: Any, n: int, kernel: Sequence[int], dilation: Sequence[int],
                  strides: Sequence[int]) -> tuple[tuple[int, int], ...]:
    if isinstance(padding, str):
        mode = padding.lower()
        if mode == "valid":
            return ((0, 0),) * n
        if mode == "same":
            if any(s != 1 for s in strides):
                raise ValueError("conv: padding='same' needs stride 1 (as in PyTorch); pass "
                                 "explicit padding for a strided convolution")
            tot = [d * (k - 1) for d, k in zip(dilation, kernel)]
            return tuple((t // 2, t - t // 2) for t in tot)
        raise ValueError(f"conv: padding must be an int, a tuple, 'same' or 'valid'; got "
                         f"{padding!r}")
    if isinstance(padding, (list, tuple)) and padding and isinstance(padding[0], (list, tuple)):
        if len(padding) != n:
            raise ValueError(f"conv: padding needs {n} (lo, hi) pairs, got {padding}")
        return tuple((int(lo), int(hi)) for lo, hi in padding)
    p = ntuple(padding, n, "conv padding")
    return tuple((a, a) for a in p)


def conv(x: ArrayLike, weight: ArrayLike, bias: ArrayLike | None = None,
         stride: _Size = 1, padding: _Size | Sequence[tuple[int, int]] | str = 0,
         dilation: _Size = 1, groups: int = 1) -> Array:
    """N-d cross-correlation (``torch.nn.functional.conv1d/2d/3d``).

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *spatial)`` with 1-3 spatial axes, or ``(C, *spatial)`` unbatched.
    weight : ArrayLike
        ``(O, C // groups, *kernel)``.
    bias : ArrayLike, optional
        ``(O,)``.
    stride, dilation : int or sequence of int, optional
        One value, or one per spatial axis (``>= 1``).
    padding : int, sequence of int, sequence of (int, int) or str, optional
        One int, one int per axis (symmetric), ``(lo, hi)`` pairs, ``'valid'`` or
        ``'same'`` (stride 1 only; the extra element of an odd total goes at the end, as
        PyTorch).
    groups : int, optional
        Divides ``C`` and ``O``.

    Returns
    -------
    Array
        ``(N, O, *out)`` (``(O, *out)`` unbatched), ``out = (L + lo + hi - dilation
        (k - 1) - 1) // stride + 1``.

    Raises
    ------
    ValueError
        For mismatched ranks/channels/dtypes, an empty output, or bad parameters.
    """
    xf, weight = as_float(x), as_float(weight, "weight")
    nd = len(weight.shape)
    if nd < 3 or nd > 5:
        raise ValueError(f"conv: weight must be (O, C/groups, *kernel) with 1-3 kernel axes, "
                         f"got shape {tuple(weight.shape)}")
    unbatched = len(xf.shape) == nd - 1
    if unbatched:
        xf = P.expand_dims(xf, (0,))
    if len(xf.shape) != nd:
        raise ValueError(f"conv: expected a {nd - 1}-d (unbatched) or {nd}-d input for a "
                         f"weight of shape {tuple(weight.shape)}, got shape {tuple(xf.shape)}")
    if xf.dtype != weight.dtype:
        raise ValueError(f"conv: x ({xf.dtype}) and weight ({weight.dtype}) must have one "
                         "dtype; cast one of them")
    n = nd - 2
    groups = int(groups)
    check_groups("conv", xf.shape, weight.shape, groups)
    O = weight.shape[0]
    strides = ntuple(stride, n, "conv stride", 1)
    dil = ntuple(dilation, n, "conv dilation", 1)
    pads = _conv_padding(padding, n, weight.shape[2:], dil, strides)
    out_sp = [(L + lo + hi - d * (k - 1) - 1) // s + 1 for L, (lo, hi), d, k, s in
              zip(xf.shape[2:], pads, dil, weight.shape[2:], strides)]
    if any(o <= 0 for o in out_sp):
        raise ValueError(f"conv: the (dilated) kernel {tuple(weight.shape[2:])} is larger "
                         f"than the padded input {tuple(xf.shape[2:])} + padding {pads}")
    b = None if bias is None else P.reshape(as_float(bias, "bias"), (O,))
    out = apply(_conv, (strides, pads, dil, groups, None), xf, weight, b)
    return out[0] if unbatched else out


# ------------------------------------------------------------------------------ pooling
def _pool_geometry(x: Array, kernel_size: _Size, stride: _Size | None, padding: _Size,
                   dilation: _Size, ceil_mode: bool, name: str) -> tuple[Any, ...]:
    """``(n, k, s, d, pads)``: window parameters over the trailing ``n`` axes (``n =
    len(kernel_size)`` for a tuple, else ``x.ndim - 2``) with the high padding that
    ``ceil_mode`` adds (PyTorch's ``pooling_output_shape``)."""
    n = len(kernel_size) if isinstance(kernel_size, (tuple, list)) else len(x.shape) - 2
    if n < 1 or n > 3 or len(x.shape) < n + 1:
        raise ValueError(f"{name}: expected an input (N, C, *spatial) with 1-3 spatial axes "
                         f"(or a tuple kernel_size naming them), got shape {tuple(x.shape)}")
    k = ntuple(kernel_size, n, f"{name} kernel_size", 1)
    s = k if stride is None or (isinstance(stride, (list, tuple)) and not stride) \
        else ntuple(stride, n, f"{name} stride", 1)
    p = ntuple(padding, n, f"{name} padding", 0)
    d = ntuple(dilation, n, f"{name} dilation", 1)
    if any(pi > ki // 2 for pi, ki in zip(p, k)):
        raise ValueError(f"{name}: padding {p} should be at most half of kernel_size {k} "
                         "(PyTorch's limit)")
    pads = []
    for L, ki, si, pi, di in zip(x.shape[len(x.shape) - n:], k, s, p, d):
        span = di * (ki - 1) + 1
        num = L + 2 * pi - span + ((si - 1) if ceil_mode else 0)
        out = num // si + 1
        if ceil_mode and (out - 1) * si >= L + pi:
            out -= 1
        if out <= 0:
            raise ValueError(f"{name}: output size {out} is too small (input {L}, kernel "
                             f"{ki}, stride {si}, padding {pi}, dilation {di})")
        pads.append((pi, (out - 1) * si + span - L - pi))
    return n, k, s, d, tuple(pads)


def _full(n_lead: int, v: Sequence[Any], fill: Any) -> tuple[Any, ...]:
    return (fill,) * n_lead + tuple(v)


def _maxpool_fun(params: _ConvParams, x: Array) -> Array:
    window, strides, pads, dil = params
    return P.reduce_window_max(x, window, strides, pads, dil)


def _maxpool_fwd(params: _ConvParams, x: Array) -> tuple[Array, tuple[Array]]:
    window, strides, pads, dil = params
    if eager(x):
        r = _WK.window_max(x, window, strides, pads, dil, True)
        if r is not None:
            return r[0], (r[1],)
    return (P.reduce_window_max(x, window, strides, pads, dil),
            (P.reduce_window_argmax(x, window, strides, pads, dil),))


def _maxpool_bwd(params: _ConvParams, res: tuple[Array], g: Array) -> tuple[Array]:
    idx, = res
    shape = params[4]
    if eager(idx, g):
        r = _WK.scatter_flat(idx, g, shape, g.dtype)
        if r is not None:
            return (r,)
    size = int(np.prod(shape, dtype=np.int64))
    g1 = P.reshape(g, tuple(g.shape) + (1,))
    return (P.reshape(_scatter_add(g1, idx, (size, 1)), shape),)


def _maxpool_fun5(params: _ConvParams, x: Array) -> Array:
    return _maxpool_fun(params[:4], x)


def _maxpool_fwd5(params: _ConvParams, x: Array) -> tuple[Array, tuple[Array]]:
    return _maxpool_fwd(params[:4], x)


_max_pool = custom_vjp(_maxpool_fun5, nondiff_argnums=(0,))
_max_pool.defvjp(_maxpool_fwd5, _maxpool_bwd)


def max_pool(x: ArrayLike, kernel_size: _Size, stride: _Size | None = None,
             padding: _Size = 0, dilation: _Size = 1, ceil_mode: bool = False,
             return_indices: bool = False) -> Array | tuple[Array, Array]:
    """Max pooling over the trailing spatial axes (``torch.nn.functional.max_pool1d/2d/3d``).

    Padding counts as ``-inf``; the derivative goes to each window's first maximum
    (PyTorch's tie rule).

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *spatial)`` or ``(C, *spatial)``, 1-3 spatial axes (as many as a tuple
        ``kernel_size`` names, else ``x.ndim - 2``).
    kernel_size : int or sequence of int
        The window, one value or one per spatial axis.
    stride : int or sequence of int, optional
        Default: ``kernel_size``.
    padding : int or sequence of int, optional
        At most ``kernel_size // 2``.
    dilation : int or sequence of int, optional
        Spacing of the window's taps.
    ceil_mode : bool, optional
        Round the output size up (a last window must start inside the input or its left
        padding).
    return_indices : bool, optional
        Also return the flat index of each maximum within its spatial plane (int64), as
        PyTorch.

    Returns
    -------
    Array or tuple of Array
        The pooled array, and with ``return_indices`` the indices.

    Raises
    ------
    ValueError
        For bad parameters or an empty output.
    """
    x = as_float(x)
    n, k, s, d, pads = _pool_geometry(x, kernel_size, stride, padding, dilation, ceil_mode,
                                      "max_pool")
    lead = len(x.shape) - n
    params = (_full(lead, k, 1), _full(lead, s, 1), ((0, 0),) * lead + pads, _full(lead, d, 1),
              tuple(x.shape))
    out = apply(_max_pool, params, x)
    if not return_indices:
        return out
    plane = int(np.prod(x.shape[lead:], dtype=np.int64))
    idx = P.reduce_window_argmax(P.stop_gradient(x), *params[:4])
    return out, P.ROW_OPS["remainder"](idx, np.int64(max(plane, 1)))


def _avg_counts(L: int, k: int, s: int, p: int, out: int, include_pad: bool) -> Array:
    """Divisor per output position along one axis (PyTorch's ``avg_pool2d``)."""
    start = np.arange(out) * s - p
    end = np.minimum(start + k, L + p)
    if include_pad:
        return end - start
    return np.minimum(end, L) - np.maximum(start, 0)


def avg_pool(x: ArrayLike, kernel_size: _Size, stride: _Size | None = None,
             padding: _Size = 0, ceil_mode: bool = False, count_include_pad: bool = True,
             divisor_override: int | None = None) -> Array:
    """Average pooling over the trailing spatial axes (``torch.nn.functional.avg_pool1d/2d/3d``).

    The window sum divided by the window size -- counting the zero padding when
    ``count_include_pad`` (but never the extra positions of ``ceil_mode``) -- or by
    ``divisor_override``.

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *spatial)`` or ``(C, *spatial)``, 1-3 spatial axes.
    kernel_size : int or sequence of int
        The window, one value or one per spatial axis.
    stride : int or sequence of int, optional
        Default: ``kernel_size``.
    padding : int or sequence of int, optional
        Zero padding, at most ``kernel_size // 2``.
    ceil_mode : bool, optional
        Round the output size up.
    count_include_pad : bool, optional
        Count the zero padding in the divisor.
    divisor_override : int, optional
        Divide every window sum by this instead.

    Returns
    -------
    Array
        The pooled array.

    Raises
    ------
    ValueError
        For bad parameters, an empty output or ``divisor_override == 0``.
    """
    x = as_float(x)
    n, k, s, d, pads = _pool_geometry(x, kernel_size, stride, padding, 1, ceil_mode,
                                      "avg_pool")
    lead = len(x.shape) - n
    total = P.reduce_window_sum(x, _full(lead, k, 1), _full(lead, s, 1),
                                ((0, 0),) * lead + pads)
    if divisor_override is not None:
        if int(divisor_override) == 0:
            raise ValueError("avg_pool: divisor_override must not be 0")
        return P.div(total, float(divisor_override))
    div = np.ones((), np.float64)
    for L, ki, si, (pi, _), o in zip(x.shape[lead:], k, s, pads, total.shape[lead:]):
        div = np.multiply.outer(div, _avg_counts(L, ki, si, pi, o, count_include_pad))
    return P.div(total, div.astype(x.dtype))


def _adaptive(x: Array, output_size: int | Sequence[int | None], name: str
              ) -> tuple[Any, ...]:
    n = len(output_size) if isinstance(output_size, (tuple, list)) else len(x.shape) - 2
    if n < 1 or n > 3 or len(x.shape) < n + 1:
        raise ValueError(f"{name}: expected an input (N, C, *spatial) with 1-3 spatial "
                         f"axes, got shape {tuple(x.shape)}")
    sizes = output_size if isinstance(output_size, (tuple, list)) else (output_size,) * n
    sp = x.shape[len(x.shape) - n:]
    out = tuple(L if o is None else int(o) for o, L in zip(sizes, sp))
    if any(o <= 0 for o in out) or any(L == 0 for L in sp):
        raise ValueError(f"{name}: output_size {tuple(sizes)} must be positive and the "
                         f"input's spatial axes {tuple(sp)} non-empty")
    # PyTorch's bins: start = floor(i L / o), end = ceil((i + 1) L / o)
    bins = [[(i * L // o, -(-(i + 1) * L // o)) for i in range(o)] for L, o in zip(sp, out)]
    return n, sp, out, bins


def adaptive_avg_pool(x: ArrayLike, output_size: int | Sequence[int | None]) -> Array:
    """Adaptive average pooling (``torch.nn.functional.adaptive_avg_pool1d/2d/3d``).

    Output bin ``i`` of an axis of length ``L`` averages ``[floor(i L / o), ceil((i + 1)
    L / o))``.  Written as one averaging matrix per axis (the pooling is separable and
    linear).

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *spatial)`` or ``(C, *spatial)``, 1-3 spatial axes.
    output_size : int or sequence of (int or None)
        One size, or one per spatial axis (None keeps that axis).

    Returns
    -------
    Array
        ``x`` with the spatial axes of ``output_size``.

    Raises
    ------
    ValueError
        For a bad rank, a non-positive size or an empty spatial axis.
    """
    xf = as_float(x)
    n, sp, out, bins = _adaptive(xf, output_size, "adaptive_avg_pool")
    nd = len(xf.shape)
    for j, (L, b) in enumerate(zip(sp, bins)):
        m = np.zeros((len(b), L), xf.dtype)
        for i, (lo, hi) in enumerate(b):
            m[i, lo:hi] = 1.0 / (hi - lo)
        ax = nd - n + j
        y = P.dot_general(xf, m, (((ax,), (1,)), ((), ())))      # new axis last
        xf = F.moveaxis(y, -1, ax)
    return xf


def adaptive_max_pool(x: ArrayLike, output_size: int | Sequence[int | None],
                      return_indices: bool = False) -> Array | tuple[Array, Array]:
    """Adaptive max pooling (``torch.nn.functional.adaptive_max_pool1d/2d/3d``).

    Bins as :func:`adaptive_avg_pool`; the derivative goes to each bin's first maximum.

    Parameters
    ----------
    x : ArrayLike
        ``(N, C, *spatial)`` or ``(C, *spatial)``, 1-3 spatial axes.
    output_size : int or sequence of (int or None)
        One size, or one per spatial axis (None keeps that axis).
    return_indices : bool, optional
        Also return the flat index of each maximum within its spatial plane.

    Returns
    -------
    Array or tuple of Array
        The pooled array, and with ``return_indices`` the indices.

    Raises
    ------
    ValueError
        For a bad rank, a non-positive size or an empty spatial axis.
    """
    x = as_float(x)
    n, sp, out, bins = _adaptive(x, output_size, "adaptive_max_pool")
    lead = x.shape[:len(x.shape) - n]
    # flat plane index of every tap of every bin, short bins padded by repeating their
    # last tap (a repeat never changes the first maximum)
    taps = []
    for L, b in zip(sp, bins):
        kmax = max(hi - lo for lo, hi in b)
        taps.append(np.array([[min(lo + t, hi - 1) for t in range(kmax)] for lo, hi in b]))
    strides = [int(np.prod(sp[j + 1:], dtype=np.int64)) for j in range(n)]
    flat = np.zeros((), np.int64)
    for t, st in zip(taps, strides):       # -> (o1, k1, o2, k2, ...)
        flat = np.add.outer(flat, t * st)
    perm = tuple(range(0, 2 * n, 2)) + tuple(range(1, 2 * n, 2))
    flat = flat.transpose(perm).reshape(out + (-1,))          # (o1, ..., on, K)
    xf = P.reshape(x, tuple(lead) + (int(np.prod(sp, dtype=np.int64)),))
    win = P.gather(xf, (Ellipsis, flat))                      # (*lead, o..., K)
    am = P.expand_dims(F.argmax(P.stop_gradient(win), axis=-1), (len(win.shape) - 1,))
    val = _take_along_axis(win, am, -1)[..., 0]
    if not return_indices:
        return val
    fb = np.broadcast_to(flat, tuple(lead) + flat.shape)
    return val, _take_along_axis(fb, am, -1)[..., 0]
