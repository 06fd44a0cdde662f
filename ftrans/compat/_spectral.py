"""``torch.stft``/``torch.istft`` and the window factories (``torch.hann_window`` ...) for
``ftrans.compat`` (installed as ``torch.*`` through :mod:`ftrans.compat.fft`'s
``TOPLEVEL``; ``stft``/``istft`` are also Tensor methods).

``stft`` and ``istft`` are each one graph node over a composition of ``ftrans.numpy``
functions (padding, framing by ``take``, windowing, the ``fft`` primitive, overlap-add
by ``at[...].add``): their gradients, for the input and for a window that requires
grad, are ``ftrans.vjp`` of that composition.  Arguments, defaults and errors
(``RuntimeError``) are PyTorch's.
"""
from __future__ import annotations

import operator
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from . import _dtype as D
from ._tensor import Tensor
from .types import DeviceLike, DTypeArg
from ._opbase import _compose
from ._pointwise import view_as_real
from ._factories import _finish as finish
from .autograd._composite import composite_class
from .signal.windows import cosine_sum, triangle, bessel_window
from .. import numpy as _fnp
from ..numpy import fft as _nfft

__all__ = ["stft", "istft", "hann_window", "hamming_window", "blackman_window",
           "bartlett_window", "kaiser_window"]

_TRANSPOSE = composite_class("TransposeBackward1", ("self", "window"))
_DIV = composite_class("DivBackward0", ("self", "window"))
_PAD = composite_class("ConstantPadNdBackward0", ("self", "window"))
_SQUEEZE4 = composite_class("SqueezeBackward4", ("self", "window"))   # stft of a 1-d signal
_SQUEEZE1 = composite_class("SqueezeBackward1", ("self", "window"))   # istft of one signal
_PAD_MODES = {"reflect": "reflect", "constant": "constant", "replicate": "edge",
              "circular": "wrap"}


# ------------------------------------------------------------------------- windows
def _window_doc(summary: str, params: str = "") -> str:
    """A window factory's docstring: ``summary``, then ``params`` (numpydoc entries of the
    parameters after ``periodic``) among the shared parameters."""
    return f"""{summary}

    Parameters
    ----------
    window_length : int
        The number of samples (0 gives an empty tensor).
    periodic : bool, optional
        True (default): one period of a ``window_length + 1`` symmetric window, for
        spectral analysis; False: the symmetric window, for filter design.
    {params}dtype : dtype, optional
        A floating dtype (the default float dtype by default).
    layout : Any, optional
        Accepted for torch's signature (strided only).
    device : device, optional
        The device of the result.
    pin_memory : bool, optional
        Accepted for torch's signature (no effect).
    requires_grad : bool, optional
        Whether the result requires grad.

    Returns
    -------
    Tensor
        The window, shape ``(window_length,)``.

    Raises
    ------
    TypeError
        If ``window_length`` is not an int.
    RuntimeError
        If ``window_length`` is negative, ``dtype`` not floating or ``layout`` sparse.
    NotImplementedError
        If ``dtype`` is complex.
    """


def _factory(name: str, window_length: int, dtype: DTypeArg, layout: Any, device: DeviceLike,
             requires_grad: bool, values: Callable[[], Any]) -> Tensor:
    if isinstance(window_length, bool) or not isinstance(window_length, (int, np.integer)):
        raise TypeError(f"{name}(): argument 'window_length' (position 1) must be int, not "
                        f"{type(window_length).__name__}")
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got "
                           f"window_length={window_length}")
    if layout is not None and str(layout) != "torch.strided":
        raise RuntimeError(f"{name} is not implemented for sparse types, got: {layout}")
    dt = D.get_default_dtype() if dtype is None else dtype
    npdt = D.to_np(dt)
    if npdt.kind == "c":
        raise NotImplementedError(f"\"arange_cpu\" not implemented for "
                                  f"'{D.from_np(npdt)._tname[:-6]}'")
    if npdt.kind != "f":
        raise RuntimeError(f"{name} expects floating point dtypes, got: {dt}")
    v = values() if window_length else np.zeros(0)
    return finish(np.asarray(v, np.float64).astype(npdt), requires_grad, device)


def hann_window(window_length: int, periodic: bool = True, *, dtype: DTypeArg = None,
                layout: Any = None, device: DeviceLike = None, pin_memory: bool = False,
                requires_grad: bool = False) -> Tensor:
    return _factory("hann_window", window_length, dtype, layout, device, requires_grad,
                    lambda: cosine_sum(window_length, (0.5, 0.5), not periodic))


hann_window.__doc__ = _window_doc("Hann window ``0.5 - 0.5 cos(2 pi k / (N - 1))`` "
                                  "(``torch.hann_window``).")


def _overload(name: str, given: Sequence[Any], *later: Any) -> None:
    """PyTorch's overloads: a parameter is accepted only after the ones before it."""
    for i, v in enumerate(later):
        if v is not None and given[i] is None:
            raise TypeError(f"{name}() received an invalid combination of arguments")


def hamming_window(window_length: int, periodic: bool | None = None,
                   alpha: float | None = None, beta: float | None = None, *,
                   dtype: DTypeArg = None, layout: Any = None, device: DeviceLike = None,
                   pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    _overload("hamming_window", (periodic, alpha), alpha, beta)
    per = True if periodic is None else periodic
    a = 0.54 if alpha is None else alpha
    b = 0.46 if beta is None else beta
    return _factory("hamming_window", window_length, dtype, layout, device, requires_grad,
                    lambda: cosine_sum(window_length, (a, b), not per))


hamming_window.__doc__ = _window_doc(
    "Hamming window ``alpha - beta cos(2 pi k / (N - 1))`` (``torch.hamming_window``).",
    """alpha : float, optional
        The constant term (0.54); given only with ``periodic``, as torch's overloads.
    beta : float, optional
        The cosine's weight (0.46); given only with ``alpha``.
    """)


def blackman_window(window_length: int, periodic: bool = True, *, dtype: DTypeArg = None,
                    layout: Any = None, device: DeviceLike = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    return _factory("blackman_window", window_length, dtype, layout, device, requires_grad,
                    lambda: cosine_sum(window_length, (0.42, 0.5, 0.08), not periodic))


blackman_window.__doc__ = _window_doc("Blackman window (``torch.blackman_window``).")


def bartlett_window(window_length: int, periodic: bool = True, *, dtype: DTypeArg = None,
                    layout: Any = None, device: DeviceLike = None, pin_memory: bool = False,
                    requires_grad: bool = False) -> Tensor:
    return _factory("bartlett_window", window_length, dtype, layout, device, requires_grad,
                    lambda: triangle(window_length, not periodic))


bartlett_window.__doc__ = _window_doc("Bartlett (triangular) window "
                                      "(``torch.bartlett_window``).")


def kaiser_window(window_length: int, periodic: bool | None = None, beta: float | None = None,
                  *, dtype: DTypeArg = None, layout: Any = None, device: DeviceLike = None,
                  pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    _overload("kaiser_window", (periodic,), beta)
    per = True if periodic is None else periodic
    b = 12.0 if beta is None else beta
    return _factory("kaiser_window", window_length, dtype, layout, device, requires_grad,
                    lambda: bessel_window(window_length, b, not per))


kaiser_window.__doc__ = _window_doc(
    "Kaiser window of shape ``beta`` (``torch.kaiser_window``).",
    """beta : float, optional
        The shape parameter (12); given only with ``periodic``, as torch's overloads.
    """)


# ------------------------------------------------------------------------- compositions
def _full_window(w: Any, n_fft: int, win_length: int, dtype: Any) -> Any:
    """The window (ones when not given) zero-padded on both sides to ``n_fft``."""
    if w is None:
        w = np.ones(win_length, dtype)
    left = (n_fft - win_length) // 2
    if left or n_fft - win_length:
        w = _fnp.pad(w, (left, n_fft - win_length - left))
    return w


def _frame_index(n_frames: int, n_fft: int, hop: int) -> np.ndarray[Any, Any]:
    return hop * np.arange(n_frames)[:, None] + np.arange(n_fft)[None, :]


def _f_stft(x: Any, *w: Any, n_fft: int, hop: int, win_length: int, pad: tuple[int, int],
            pad_mode: str, onesided: bool, norm: str) -> Any:
    if pad[0] or pad[1]:
        x = _fnp.pad(x, ((0, 0),) * (x.ndim - 1) + (pad,), mode=pad_mode)
    n_frames = 1 + (x.shape[-1] - n_fft) // hop
    frames = _fnp.take(x, _frame_index(n_frames, n_fft, hop), axis=-1)
    if w or win_length < n_fft:   # (no window: ones on win_length samples)
        frames = frames * _full_window(w[0] if w else None, n_fft, win_length,
                                       np.ones(0, x.dtype).real.dtype)
    if onesided:
        out = _nfft.rfft(frames, axis=-1, norm=norm)
    else:
        out = _nfft.fft(frames, axis=-1, norm=norm)
    return _fnp.swapaxes(out, -1, -2)


def _overlap_add(frames: Any, idx: np.ndarray[Any, Any], total: int) -> Any:
    """Sum of the ``frames`` (..., n_frames, n_fft) placed at ``idx`` on ``total`` samples."""
    lead = frames.shape[:-2]
    y = np.zeros(lead + (total,), frames.dtype)
    vals = _fnp.reshape(frames, lead + (idx.size,))
    return _fnp.at(y)[..., idx.reshape(-1)].add(vals)


def _f_istft(z: Any, *w: Any, n_fft: int, hop: int, win_length: int, onesided: bool, norm: str,
             return_complex: bool, start: int, end: int, tail: int, rdt: np.dtype[Any]) -> Any:
    z = _fnp.swapaxes(z, -1, -2)                      # (..., n_frames, freq)
    if return_complex:
        frames = _nfft.ifft(z, axis=-1, norm=norm)
    else:
        if not onesided:
            z = z[..., :n_fft // 2 + 1]
        frames = _nfft.irfft(z, n_fft, axis=-1, norm=norm)
    win = _full_window(w[0] if w else None, n_fft, win_length, rdt)
    n_frames = z.shape[-2]
    total = n_fft + hop * (n_frames - 1)
    idx = _frame_index(n_frames, n_fft, hop)
    y = _overlap_add(frames * win, idx, total)[..., start:end]
    env = _overlap_add(_fnp.broadcast_to(win * win, (n_frames, n_fft)), idx, total)[start:end]
    y = y / env
    if tail:
        y = _fnp.pad(y, ((0, 0),) * (y.ndim - 1) + ((0, tail),))
    return y


# ------------------------------------------------------------------------- stft / istft
def _window_arg(window: Tensor | None, win_length: int, fname: str) -> Tensor | None:
    if window is None:
        return None
    if not isinstance(window, Tensor):
        raise TypeError(f"{fname}(): argument 'window' must be Tensor, not "
                        f"{type(window).__name__}")
    if window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{fname}: expected a 1D window tensor of size equal to "
                           f"win_length={win_length}, but got window with size "
                           f"{list(window.shape)}")
    return window


def _lengths(n_fft: int, hop_length: int | None, win_length: int | None,
             fname: str) -> tuple[int, int, int]:
    n_fft = operator.index(n_fft)
    hop = n_fft >> 2 if hop_length is None else operator.index(hop_length)
    win = n_fft if win_length is None else operator.index(win_length)
    if hop <= 0:
        raise RuntimeError(f"{fname}: expected hop_length > 0, but got hop_length={hop}")
    if not 0 < win <= n_fft:
        raise RuntimeError(f"{fname}: expected 0 < win_length <= n_fft, but got "
                           f"win_length={win}")
    return n_fft, hop, win


def stft(input: Tensor, n_fft: int, hop_length: int | None = None,  # noqa: A002
         win_length: int | None = None, window: Tensor | None = None, center: bool = True,
         pad_mode: str = "reflect", normalized: bool = False, onesided: bool | None = None,
         return_complex: bool | None = None, align_to_window: bool | None = None) -> Tensor:
    """Short-time Fourier transform (``torch.stft``).

    Frames of ``n_fft`` samples every ``hop_length``, times ``window`` (zero-padded to
    ``n_fft``), each transformed.

    Parameters
    ----------
    input : Tensor
        The signal, shape ``(L,)`` or ``(B, L)``; floating or complex.
    n_fft : int
        The frame (and transform) length.
    hop_length : int, optional
        The distance between frames (``n_fft // 4`` by default).
    win_length : int, optional
        The window's length (``n_fft`` by default; at most ``n_fft``).
    window : Tensor, optional
        A 1-d window of ``win_length`` samples (a rectangular window, with a warning, by
        default).
    center : bool, optional
        Pad the signal by ``n_fft // 2`` on both sides so frame ``t`` is centered at
        ``t * hop_length``.
    pad_mode : str, optional
        The padding with ``center``: ``"reflect"`` (default), ``"constant"``,
        ``"replicate"`` or ``"circular"``.
    normalized : bool, optional
        Scale by ``1/sqrt(n_fft)`` (the "ortho" norm).
    onesided : bool, optional
        Return the ``n_fft // 2 + 1`` non-negative frequencies only (default for real
        input and window).
    return_complex : bool, optional
        A complex result (required for real input); False (deprecated, warns): its real
        view with a last dimension of 2.
    align_to_window : bool, optional
        With ``center=False``: frames of ``win_length`` samples centered in ``n_fft``.

    Returns
    -------
    Tensor
        Shape ``(..., freq, frames)``: complex, or its real view.

    Raises
    ------
    RuntimeError
        If ``return_complex`` is missing for real input, the input is not 1-d/2-d,
        floating or complex, a length is invalid, or ``align_to_window`` is given with
        ``center``.
    NotImplementedError
        If ``pad_mode`` is unknown.
    """
    if align_to_window is not None and center:
        raise RuntimeError("stft align_to_window should only be set when center = false")
    d = input._data
    wd = None if window is None else window._data
    cplx = d.dtype.kind == "c" or (wd is not None and wd.dtype.kind == "c")
    if return_complex is None:
        if not cplx:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True "
                               "in a future PyTorch release.")
        return_complex = True
    if d.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {d.ndim}D tensor")
    if d.dtype.kind not in "fc":
        raise RuntimeError(f"stft: expected a tensor of floating point or complex values, "
                           f"got {D.from_np(d.dtype)}")
    n_fft, hop, win = _lengths(n_fft, hop_length, win_length, "stft")
    window = _window_arg(window, win, "stft")
    pad = n_fft // 2 if center else 0
    if center and pad_mode not in _PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {pad_mode}")
    if center and pad_mode == "reflect" and pad >= d.shape[-1]:
        raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                           f"input dimension, but got: padding ({pad}, {pad}) at dimension "
                           f"{d.ndim} of input {[1] * (3 - d.ndim) + list(d.shape)}")
    if align_to_window:   # frames of win_length samples, centered in n_fft
        left = (n_fft - win) // 2
        pads, pad_mode = (left, n_fft - win - left), "constant"
    else:
        pads = (pad, pad)
    length = d.shape[-1] + pads[0] + pads[1]
    if not 0 < n_fft <= length:
        raise RuntimeError(f"stft: expected 0 < n_fft < {length}, but got n_fft={n_fft}")
    if onesided is None:
        onesided = not cplx
    elif onesided and cplx:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    params = {"n_fft": n_fft, "hop": hop, "win_length": win, "pad": pads,
              "pad_mode": _PAD_MODES.get(pad_mode, "constant"), "onesided": bool(onesided),
              "norm": "ortho" if normalized else "backward"}
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied,which "
                      "is known to cause spectral leakage. Other windows such as "
                      "torch.hann_window or torch.hamming_window are recommended to reduce "
                      "spectral leakage.To suppress this warning and use a rectangular window, "
                      "explicitly set `window=torch.ones(n_fft, device=<device>)`.",
                      UserWarning, stacklevel=2)
    if not return_complex:
        warnings.warn("stft with return_complex=False is deprecated. In a future pytorch "
                      "release, stft will return complex tensors for all inputs, and "
                      "return_complex=False will raise an error.", UserWarning, stacklevel=2)
    args, datas = ([input], [d]) if window is None else ([input, window], [d, wd])
    out = _compose(_TRANSPOSE if d.ndim == 2 else _SQUEEZE4, _f_stft, args, datas, params)
    return out if return_complex else view_as_real(out)


def istft(input: Tensor, n_fft: int, hop_length: int | None = None,  # noqa: A002
          win_length: int | None = None, window: Tensor | None = None, center: bool = True,
          normalized: bool = False, onesided: bool | None = None, length: int | None = None,
          return_complex: bool = False) -> Tensor:
    """Inverse short-time Fourier transform (``torch.istft``).

    The frames' inverse transforms, windowed, overlap-added and divided by the
    overlap-added squared window.

    Parameters
    ----------
    input : Tensor
        The complex STFT, shape ``(freq, frames)`` or ``(B, freq, frames)``.
    n_fft : int
        The frame length used by ``stft``.
    hop_length : int, optional
        The distance between frames (``n_fft // 4`` by default; at most ``win_length``).
    win_length : int, optional
        The window's length (``n_fft`` by default).
    window : Tensor, optional
        The window used by ``stft`` (rectangular, with a warning, by default).
    center : bool, optional
        Whether ``stft`` padded the signal (the padding is removed).
    normalized : bool, optional
        Whether ``stft`` used the "ortho" norm.
    onesided : bool, optional
        Whether ``input`` holds the non-negative frequencies only (default: inferred from
        its frequency dimension).
    length : int, optional
        The signal length: the result is trimmed or zero-padded (with a warning) to it.
    return_complex : bool, optional
        A complex signal (not with ``onesided``).

    Returns
    -------
    Tensor
        The signal, shape ``(L,)`` or ``(B, L)``; real unless ``return_complex``.

    Raises
    ------
    RuntimeError
        If ``input`` is not complex, empty or of the wrong rank, a length does not match,
        or the window's overlap-added square is below 1e-11 somewhere (NOLA).
    """
    d = input._data
    if d.dtype.kind != "c":
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    if d.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 3 or 4 dimensions of complex "
                           f"dtype, but got {d.ndim + 1}")
    if d.size == 0:
        raise RuntimeError("istft: input tensor cannot be empty.")
    n_fft, hop, win = _lengths(n_fft, hop_length, win_length, "istft")
    if hop > win:
        raise RuntimeError("istft: expected 0 < hop_length <= win_length")
    fft_size, n_frames = d.shape[-2], d.shape[-1]
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided and n_fft // 2 + 1 != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft / 2 + 1 when onesided=True, but got "
                           f"{fft_size}")
    if not onesided and n_fft != fft_size:
        raise RuntimeError(f"istft: expected the frequency dimension (3rd to the last) of the "
                           f"input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    window = _window_arg(window, win, "istft")
    wd = None if window is None else window._data
    if return_complex and onesided:
        raise RuntimeError("cannot have onesided output if window or input is complex")
    if not return_complex and wd is not None and wd.dtype.kind == "c":
        raise RuntimeError("Complex windows are incompatible with return_complex=False")
    total = n_fft + hop * (n_frames - 1)
    start = n_fft // 2 if center else 0
    end = start + operator.index(length) if length is not None else (
        -(n_fft // 2) if center else total)
    rdt = np.dtype(np.float32 if d.dtype == np.complex64 else np.float64)
    if wd is None or type(wd) is np.ndarray:   # (a traced window cannot be checked)
        w2 = np.asarray(_full_window(wd, n_fft, win, rdt)) ** 2
        env = np.zeros(total, w2.dtype)
        np.add.at(env, _frame_index(n_frames, n_fft, hop).reshape(-1), np.tile(w2, n_frames))
        env = np.abs(env[start:end])
        if env.size and env.min() < 1e-11:
            raise RuntimeError(f"istft: window overlap add min: {env.min():.3g} (the squared "
                               "window must not sum to zero where frames overlap: NOLA)")
    tail = end - total if end > total else 0
    if window is None:
        warnings.warn("A window was not provided. A rectangular window will be applied.Please "
                      "provide the same window used by stft to make the inversion lossless.To "
                      "suppress this warning and use a rectangular window, explicitly set "
                      "`window=torch.ones(n_fft, device=<device>)`.", UserWarning, stacklevel=2)
    if tail:
        warnings.warn("The length of signal is shorter than the length parameter. Result is "
                      "being padded with zeros in the tail. Please check your center and "
                      "hop_length settings.", UserWarning, stacklevel=2)
    params = {"n_fft": n_fft, "hop": hop, "win_length": win, "onesided": bool(onesided),
              "norm": "ortho" if normalized else "backward",
              "return_complex": bool(return_complex), "start": start, "end": end,
              "tail": tail, "rdt": rdt}
    args, datas = ([input], [d]) if window is None else ([input, window], [d, wd])
    cls = _PAD if tail else _DIV if d.ndim == 3 else _SQUEEZE1
    return _compose(cls, _f_istft, args, datas, params)
