"""``torch.nn.init``: in-place initializers (under ``no_grad``) with PyTorch's formulas.

The random numbers come from compat's generator (``torch.manual_seed``), so values
differ from PyTorch's; the distributions and their parameters are PyTorch's:
``xavier_uniform_`` draws from ``U(-a, a)`` with ``a = gain sqrt(6 / (fan_in +
fan_out))``, ``kaiming_uniform_`` with ``a = gain sqrt(3 / fan)``, ``gain =
calculate_gain(nonlinearity, a)`` (Glorot & Bengio 2010; He et al. 2015).
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import ftrans.compat as torch
from ftrans.compat._factories import Generator, _gen
from numpy.typing import ArrayLike
from ..types import Tensor

__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_",
           "xavier_uniform_", "xavier_normal_", "kaiming_uniform_", "kaiming_normal_",
           "orthogonal_", "trunc_normal_", "_calculate_fan_in_and_fan_out"]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended gain for ``nonlinearity`` (``torch.nn.init.calculate_gain``).

    Parameters
    ----------
    nonlinearity : str
        ``'linear'``, a conv name, ``'sigmoid'``, ``'tanh'``, ``'relu'``, ``'leaky_relu'`` or
        ``'selu'``.
    param : float, optional
        leaky_relu's negative slope (default 0.01).

    Returns
    -------
    float
        1 for linear/conv/sigmoid, 5/3 for tanh, sqrt(2) for relu,
        sqrt(2 / (1 + slope^2)) for leaky_relu, 3/4 for selu.

    Raises
    ------
    ValueError
        For an unknown name or a bad slope.
    """
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fill(tensor: Tensor, values: ArrayLike) -> Tensor:
    with torch.no_grad():
        tensor.copy_(torch.as_tensor(np.asarray(values)).to(tensor.dtype))
    return tensor


def _rng(generator: Generator | None) -> np.random.Generator:
    return _gen(generator)


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0,
             generator: Generator | None = None) -> Tensor:
    """Fill with ``U(a, b)`` (``torch.nn.init.uniform_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    a : float, optional
        Lower bound (default 0).
    b : float, optional
        Upper bound (default 1).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled.
    """
    return _fill(tensor, _rng(generator).uniform(a, b, tuple(tensor.shape)))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0,
            generator: Generator | None = None) -> Tensor:
    """Fill with ``N(mean, std^2)`` (``torch.nn.init.normal_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    mean : float, optional
        Default 0.
    std : float, optional
        Default 1.
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled.
    """
    return _fill(tensor, _rng(generator).normal(mean, std, tuple(tensor.shape)))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0,
                  b: float = 2.0, generator: Generator | None = None) -> Tensor:
    """Fill with ``N(mean, std^2)`` truncated to ``[a, b]`` (``torch.nn.init.trunc_normal_``).

    Drawn by rejection sampling.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    mean : float, optional
        Default 0.
    std : float, optional
        Default 1.
    a : float, optional
        Lower cut-off (default -2).
    b : float, optional
        Upper cut-off (default 2).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled.
    """
    g = _rng(generator)
    n = tensor.numel()
    out = np.empty(0)
    while out.size < n:
        v = g.normal(mean, std, 2 * n + 8)
        out = np.concatenate([out, v[(v >= a) & (v <= b)]])
    return _fill(tensor, out[:n].reshape(tuple(tensor.shape)))


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val`` (``torch.nn.init.constant_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    val : float
        The value.

    Returns
    -------
    Tensor
        ``tensor``, filled.
    """
    with torch.no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros (``torch.nn.init.zeros_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.

    Returns
    -------
    Tensor
        ``tensor``, filled.
    """
    with torch.no_grad():
        return tensor.zero_()


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones (``torch.nn.init.ones_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.

    Returns
    -------
    Tensor
        ``tensor``, filled.
    """
    with torch.no_grad():
        return tensor.fill_(1.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-d tensor with the identity (``torch.nn.init.eye_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.

    Returns
    -------
    Tensor
        ``tensor``, filled.

    Raises
    ------
    ValueError
        For a tensor that is not 2-d.
    """
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """The fan-in and fan-out of a weight ``(out, in, *kernel)`` (torch's private helper).

    Parameters
    ----------
    tensor : Tensor
        At least 2-d.

    Returns
    -------
    tuple of int
        ``(in * prod(kernel), out * prod(kernel))``.

    Raises
    ------
    ValueError
        For a tensor of fewer than 2 dimensions.
    """
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    num_input_fmaps = tensor.shape[1]
    num_output_fmaps = tensor.shape[0]
    receptive_field_size = 1
    for s in tensor.shape[2:]:
        receptive_field_size *= s
    return num_input_fmaps * receptive_field_size, num_output_fmaps * receptive_field_size


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def xavier_uniform_(tensor: Tensor, gain: float = 1.0,
                    generator: Generator | None = None) -> Tensor:
    """Fill with ``U(-a, a)``, ``a = gain sqrt(6 / (fan_in + fan_out))``.

    As ``torch.nn.init.xavier_uniform_``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    gain : float, optional
        Scale (default 1).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled.

    Raises
    ------
    ValueError
        For a tensor of fewer than 2 dimensions.

    Notes
    -----
    Glorot and Bengio (2010).
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill with ``N(0, std^2)``, ``std = gain sqrt(2 / (fan_in + fan_out))``.

    As ``torch.nn.init.xavier_normal_``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    gain : float, optional
        Scale (default 1).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled.

    Raises
    ------
    ValueError
        For a tensor of fewer than 2 dimensions.

    Notes
    -----
    Glorot and Bengio (2010).
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                     nonlinearity: str = "leaky_relu",
                     generator: Generator | None = None) -> Tensor:
    """Fill with ``U(-b, b)``, ``b = gain sqrt(3 / fan)`` (``torch.nn.init.kaiming_uniform_``).

    ``gain = calculate_gain(nonlinearity, a)``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    a : float, optional
        Negative slope of the following leaky_relu (default 0).
    mode : str, optional
        ``'fan_in'`` (default: preserves the forward variance) or ``'fan_out'``.
    nonlinearity : str, optional
        For ``calculate_gain`` (default ``'leaky_relu'``).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled (a zero-element tensor is returned unchanged, with a warning).

    Raises
    ------
    ValueError
        For fewer than 2 dimensions or an unknown ``mode``.

    Notes
    -----
    He et al. (2015), "Delving Deep into Rectifiers".
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in",
                    nonlinearity: str = "leaky_relu", generator: Generator | None = None) -> Tensor:
    """Fill with ``N(0, std^2)``, ``std = gain / sqrt(fan)`` (``torch.nn.init.kaiming_normal_``).

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    a : float, optional
        Negative slope of the following leaky_relu (default 0).
    mode : str, optional
        ``'fan_in'`` (default: preserves the forward variance) or ``'fan_out'``.
    nonlinearity : str, optional
        For ``calculate_gain`` (default ``'leaky_relu'``).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled (a zero-element tensor is returned unchanged, with a warning).

    Raises
    ------
    ValueError
        For fewer than 2 dimensions or an unknown ``mode``.

    Notes
    -----
    He et al. (2015), "Delving Deep into Rectifiers".
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    return normal_(tensor, 0.0, gain / math.sqrt(fan), generator)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Generator | None = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain`` (``torch.nn.init.orthogonal_``).

    The tensor is viewed as ``rows x prod(other dims)``; the matrix comes from the QR
    decomposition of a Gaussian matrix, signs fixed by ``diag(R)``.

    Parameters
    ----------
    tensor : Tensor
        The tensor to fill in place.
    gain : float, optional
        Scale (default 1).
    generator : Generator, optional
        compat's generator to draw from (default: the global one).

    Returns
    -------
    Tensor
        ``tensor``, filled.

    Raises
    ------
    ValueError
        For a tensor of fewer than 2 dimensions.

    Notes
    -----
    Saxe et al. (2013), "Exact solutions to the nonlinear dynamics of learning in deep
    linear neural networks".
    """
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _rng(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tuple(tensor.shape)))


def _no_underscore(name: str) -> Callable[..., Tensor]:
    """The deprecated initializer ``name`` (warns, then calls ``name + '_'``)."""
    def f(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(f"nn.init.{name} is now deprecated in favor of nn.init.{name}_.",
                      FutureWarning, stacklevel=2)
        return globals()[name + "_"](*args, **kwargs)
    return f


uniform = _no_underscore("uniform")
normal = _no_underscore("normal")
constant = _no_underscore("constant")
xavier_uniform = _no_underscore("xavier_uniform")
xavier_normal = _no_underscore("xavier_normal")
kaiming_uniform = _no_underscore("kaiming_uniform")
kaiming_normal = _no_underscore("kaiming_normal")
orthogonal = _no_underscore("orthogonal")
