"""``torch.nn.functional``'s activation functions on compat Tensors (the public
namespace, its conventions and sources: :mod:`ftrans.compat.nn.functional`).  relu and
softmax/log_softmax are compat's adapters of ``ftrans.nn``'s fused functions.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

import ftrans.compat as torch
from ..types import DTypeArg, Tensor
from . import _checks


# ============================================================================== activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``max(0, x)`` elementwise; ``relu'(0) = 0`` (``torch.nn.functional.relu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return input.relu_() if inplace else torch.relu(input)


def relu_(input: Tensor) -> Tensor:  # noqa: A002
    """In-place ``relu`` (``torch.nn.functional.relu_``).

    Parameters
    ----------
    input : Tensor
        Any shape.

    Returns
    -------
    Tensor
        ``input``, overwritten.
    """
    return input.relu_()


def leaky_relu(input: Tensor, negative_slope: float = 0.01,  # noqa: A002
               inplace: bool = False) -> Tensor:
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise (``torch.nn.functional.leaky_relu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    negative_slope : float, optional
        Slope for non-positive inputs (default 0.01).
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    out = torch.where(input > 0, input, input * negative_slope)
    return input.copy_(out) if inplace else out


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise (``torch.nn.functional.elu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    alpha : float, optional
        Scale of the negative part (default 1.0).
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Notes
    -----
    Clevert et al. (2015), "Fast and Accurate Deep Network Learning by Exponential
    Linear Units".
    """
    out = torch.where(input > 0, input, torch.expm1(input.clamp(max=0.0)) * alpha)
    return input.copy_(out) if inplace else out


def gelu(input: Tensor, approximate: str = "none") -> Tensor:  # noqa: A002
    """``x Phi(x)``, the Gaussian error linear unit (``torch.nn.functional.gelu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    approximate : str, optional
        ``'none'`` (exact, with ``erf``; default) or ``'tanh'`` (PyTorch's tanh formula).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    RuntimeError
        For another ``approximate``.

    Notes
    -----
    Hendrycks and Gimpel (2016), "Gaussian Error Linear Units".
    """
    if approximate == "none":
        return input * 0.5 * (1.0 + torch.erf(input * (1.0 / math.sqrt(2.0))))
    if approximate == "tanh":
        inner = (input + input * input * input * 0.044715) * math.sqrt(2.0 / math.pi)
        return input * 0.5 * (1.0 + torch.tanh(inner))
    raise RuntimeError(f"approximate argument must be either none or tanh., got "
                       f"{approximate!r}")


def silu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * sigmoid(x)`` elementwise (``torch.nn.functional.silu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    out = input * torch.sigmoid(input)
    return input.copy_(out) if inplace else out


def sigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """``1 / (1 + exp(-x))`` elementwise (``torch.nn.functional.sigmoid``).

    Parameters
    ----------
    input : Tensor
        Any shape.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return torch.sigmoid(input)


def tanh(input: Tensor) -> Tensor:  # noqa: A002
    """Hyperbolic tangent elementwise (``torch.nn.functional.tanh``).

    Parameters
    ----------
    input : Tensor
        Any shape.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return torch.tanh(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:  # noqa: A002
    """``log(1 + exp(beta x)) / beta``, the identity where ``beta x > threshold``.

    As ``torch.nn.functional.softplus``.

    Parameters
    ----------
    input : Tensor
        Any shape.
    beta : float, optional
        Sharpness (default 1.0).
    threshold : float, optional
        Linear above it (default 20.0).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    z = input * beta
    soft = torch.log1p(torch.exp(z.clamp(max=threshold))) / beta
    return torch.where(z > threshold, input, soft)


def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    """``log(sigmoid(x))`` without overflow (``torch.nn.functional.logsigmoid``).

    Parameters
    ----------
    input : Tensor
        Any shape.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    neg = input - torch.log1p(torch.exp(input.clamp(max=0.0)))
    pos = -torch.log1p(torch.exp(-input.clamp(min=0.0)))
    return torch.where(input < 0, neg, pos)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``min(max(0, x), 6)`` elementwise (``torch.nn.functional.relu6``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return hardtanh(input, 0.0, 6.0, inplace)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,  # noqa: A002
             inplace: bool = False) -> Tensor:
    """``clamp(x, min_val, max_val)``; gradient 1 strictly inside, 0 at and beyond the bounds.

    As ``torch.nn.functional.hardtanh``.

    Parameters
    ----------
    input : Tensor
        Any shape.
    min_val : float, optional
        Lower bound (default -1.0).
    max_val : float, optional
        Upper bound (default 1.0).
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    ValueError
        If ``min_val > max_val``.
    """
    _checks.hardtanh(min_val, max_val)
    out = torch.where((input > min_val) & (input < max_val), input,
                      input.clamp(min_val, max_val).detach())
    return input.copy_(out) if inplace else out


def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    """``max(0, x) + weight * min(0, x)`` (``torch.nn.functional.prelu``).

    Parameters
    ----------
    input : Tensor
        ``(N, C, *)``, or any shape with one slope.
    weight : Tensor
        1 or C (axis 1) slopes, 0-d or 1-d.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Raises
    ------
    RuntimeError
        For a ``weight`` of more than one dimension or a slope count other than 1 or C.
    """
    if weight.dim() > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.dim()}")
    if weight.numel() != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        if input.dim() < 2 or weight.numel() != input.shape[1]:
            raise RuntimeError("Mismatch of parameter numbers and input channel size.")
    w = weight
    if input.dim() == 0 and weight.numel() == 1:   # a 0-d input stays 0-d
        w = weight.reshape(())
    elif weight.numel() > 1 and input.dim() >= 2:
        w = weight.reshape((1, -1) + (1,) * (input.dim() - 2))
    return torch.where(input > 0, input, input * w)


def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``scale * elu(x, alpha)`` with Klambauer et al.'s constants (``torch.nn.functional.selu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Notes
    -----
    Klambauer et al. (2017), "Self-Normalizing Neural Networks".
    """
    out = elu(input, 1.6732632423543772848170429916717) * 1.0507009873554804934193349852946
    return input.copy_(out) if inplace else out


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))`` (``torch.nn.functional.celu``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    alpha : float, optional
        Scale of the negative part (default 1.0).
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    out = torch.where(input > 0, input, torch.expm1(input.clamp(max=0.0) / alpha) * alpha)
    return input.copy_(out) if inplace else out


def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * tanh(softplus(x))`` elementwise (``torch.nn.functional.mish``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Notes
    -----
    Misra (2019), "Mish: A Self Regularized Non-Monotonic Activation Function".
    """
    out = input * torch.tanh(softplus(input))
    return input.copy_(out) if inplace else out


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``relu6(x + 3) / 6``; gradient 1/6 strictly inside (-3, 3).

    As ``torch.nn.functional.hardsigmoid``.

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Notes
    -----
    PyTorch's backward multiplies by 1/6 rounded to float32 whatever the dtype, and
    so does this one.
    """
    c = float(np.float32(1.0 / 6.0))
    lin = input * c + ((input + 3.0) / 6.0 - input * c).detach()     # value (x + 3) / 6
    out = torch.where((input > -3.0) & (input < 3.0), lin,
                      (input / 6.0 + 0.5).clamp(0.0, 1.0).detach())
    return input.copy_(out) if inplace else out


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    """``x * relu6(x + 3) / 6`` (``torch.nn.functional.hardswish``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.

    Notes
    -----
    PyTorch's gradient: 0 below -3, 1 above 3 and ``x / 3 + 0.5`` on [-3, 3].
    """
    mid = input * (input + 3.0) / 6.0
    out = torch.where(input < -3.0, input * 0.0, torch.where(input > 3.0, input, mid))
    return input.copy_(out) if inplace else out


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    """``x / (1 + |x|)`` elementwise (``torch.nn.functional.softsign``).

    Parameters
    ----------
    input : Tensor
        Any shape.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return input / (1.0 + input.abs())


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    """``x - tanh(x)`` elementwise (``torch.nn.functional.tanhshrink``).

    Parameters
    ----------
    input : Tensor
        Any shape.

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    return input - torch.tanh(input)


def threshold(input: Tensor, threshold: float, value: float,  # noqa: A002
              inplace: bool = False) -> Tensor:
    """``x`` where ``x > threshold``, else ``value`` (``torch.nn.functional.threshold``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    threshold : float
        The threshold.
    value : float
        The replacement.
    inplace : bool, optional
        Write the result into ``input`` (default False).

    Returns
    -------
    Tensor
        Same shape and dtype as ``input``.
    """
    out = torch.where(input > threshold, input, torch.full_like(input, value))
    return input.copy_(out) if inplace else out


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: DTypeArg = None) -> Tensor:  # noqa: A002
    """``softmax(-x)`` along ``dim`` (``torch.nn.functional.softmin``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    dim : int, optional
        The axis; None picks PyTorch's deprecated implicit axis (0 for 0-, 1- and 3-d
        inputs, else 1) with a warning.
    _stacklevel : int, optional
        Unused (torch's signature).
    dtype : dtype, optional
        Cast ``input`` to this dtype first.

    Returns
    -------
    Tensor
        Same shape as ``input``, summing to 1 along ``dim``.
    """
    if dim is None:
        dim = _implicit_dim(input.dim(), "softmin")
    return torch.softmax(-input, dim, dtype=dtype)


def _implicit_dim(ndim: int, name: str) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype: DTypeArg = None) -> Tensor:  # noqa: A002
    """``exp(x) / sum(exp(x))`` along ``dim`` (``torch.nn.functional.softmax``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    dim : int, optional
        The axis; None picks PyTorch's deprecated implicit axis (0 for 0-, 1- and 3-d
        inputs, else 1) with a warning.
    _stacklevel : int, optional
        Unused (torch's signature).
    dtype : dtype, optional
        Cast ``input`` to this dtype first.

    Returns
    -------
    Tensor
        Same shape as ``input``, summing to 1 along ``dim``.
    """
    if dim is None:
        dim = _implicit_dim(input.dim(), "softmax")
    return torch.softmax(input, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype: DTypeArg = None) -> Tensor:  # noqa: A002
    """``x - logsumexp(x)`` along ``dim`` (``torch.nn.functional.log_softmax``).

    Parameters
    ----------
    input : Tensor
        Any shape.
    dim : int, optional
        The axis; None picks PyTorch's deprecated implicit axis (0 for 0-, 1- and 3-d
        inputs, else 1) with a warning.
    _stacklevel : int, optional
        Unused (torch's signature).
    dtype : dtype, optional
        Cast ``input`` to this dtype first.

    Returns
    -------
    Tensor
        Same shape as ``input``.
    """
    if dim is None:
        dim = _implicit_dim(input.dim(), "log_softmax")
    return torch.log_softmax(input, dim, dtype=dtype)
