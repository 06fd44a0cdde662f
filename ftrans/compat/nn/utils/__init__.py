"""``torch.nn.utils``: gradient clipping and flattening parameters to one vector."""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterable

import ftrans.compat as torch
from ...types import Tensor
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm", "get_total_norm"]


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors: Tensor | Iterable[Tensor], norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """The ``norm_type``-norm of all ``tensors`` together, as one vector.

    As ``torch.nn.utils.get_total_norm``.

    Parameters
    ----------
    tensors : Tensor or iterable of Tensor
        The tensors (detached).
    norm_type : float, optional
        Order of the norm (default 2; ``inf`` for the max-norm).
    error_if_nonfinite : bool, optional
        Raise if the norm is nan or inf (default False).
    foreach : bool, optional
        Accepted for torch's signature (unused).

    Returns
    -------
    Tensor
        0-d; 0 for no tensors.

    Raises
    ------
    RuntimeError
        With ``error_if_nonfinite`` and a non-finite norm.
    """
    if isinstance(tensors, Tensor):
        tensors = [tensors]
    tensors = list(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return torch.tensor(0.0)
    if norm_type == math.inf:
        total = torch.stack([t.detach().abs().max() for t in tensors]).max()
    else:
        total = torch.stack([t.detach().norm(norm_type) for t in tensors]).norm(norm_type)
    if error_if_nonfinite and not bool(torch.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from "
                           "`parameters` is non-finite, so it cannot be clipped. To disable "
                           "this error and scale the gradients by the non-finite norm anyway, "
                           "set `error_if_nonfinite=False`")
    return total


def clip_grad_norm_(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                    error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Scale the gradients in place so their joint norm is at most ``max_norm``.

    As ``torch.nn.utils.clip_grad_norm_``.

    The factor is ``max_norm / (norm + 1e-6)`` clamped at 1, as in PyTorch.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        The parameters whose ``.grad`` are clipped (those without one are skipped).
    max_norm : float
        The largest allowed norm.
    norm_type : float, optional
        Order of the norm (default 2; ``inf`` for the max-norm).
    error_if_nonfinite : bool, optional
        Raise if the total norm is nan or inf (default False).
    foreach : bool, optional
        Accepted for torch's signature (unused).

    Returns
    -------
    Tensor
        The total norm before clipping (0-d).

    Raises
    ------
    RuntimeError
        With ``error_if_nonfinite`` and a non-finite norm.
    """
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    coef = (float(max_norm) / (total + 1e-6)).clamp(max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_norm(parameters: Tensor | Iterable[Tensor], max_norm: float, norm_type: float = 2.0,
                   error_if_nonfinite: bool = False, foreach: bool | None = None) -> Tensor:
    """Deprecated alias of ``clip_grad_norm_`` (warns) (``torch.nn.utils.clip_grad_norm``).

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        The parameters whose ``.grad`` are clipped (those without one are skipped).
    max_norm : float
        The largest allowed norm.
    norm_type : float, optional
        Order of the norm (default 2; ``inf`` for the max-norm).
    error_if_nonfinite : bool, optional
        Raise if the total norm is nan or inf (default False).
    foreach : bool, optional
        Accepted for torch's signature (unused).

    Returns
    -------
    Tensor
        The total norm before clipping (0-d).

    Raises
    ------
    RuntimeError
        With ``error_if_nonfinite`` and a non-finite norm.
    """
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float,
                     foreach: bool | None = None) -> None:
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place.

    As ``torch.nn.utils.clip_grad_value_``.

    Parameters
    ----------
    parameters : Tensor or iterable of Tensor
        The parameters whose ``.grad`` are clipped (those without one are skipped).
    clip_value : float
        The bound.
    foreach : bool, optional
        Accepted for torch's signature (unused).
    """
    clip_value = float(clip_value)
    with torch.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated into one 1-d tensor.

    As ``torch.nn.utils.parameters_to_vector``.

    Parameters
    ----------
    parameters : iterable of Tensor
        The parameters, e.g. ``model.parameters()``.

    Returns
    -------
    Tensor
        1-d, the total number of elements.

    Raises
    ------
    TypeError
        For a single Tensor instead of an iterable.
    """
    if isinstance(parameters, Tensor):
        raise TypeError(f"expected an iterable of Tensors, but got: {type(parameters).__name__}")
    return torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data.

    As ``torch.nn.utils.vector_to_parameters``.

    Parameters
    ----------
    vec : Tensor
        1-d, as ``parameters_to_vector`` returns.
    parameters : iterable of Tensor
        The parameters to overwrite.

    Raises
    ------
    TypeError
        If ``vec`` is not a Tensor.
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].reshape(tuple(p.shape)).data
        pointer += n
