"""``torch.nn.utils``: gradient clipping and flattening parameters to one vector."""
from __future__ import annotations

import math

import ftrans.compat as torch
from ftrans.compat import Tensor
from . import rnn  # noqa: F401

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector",
           "vector_to_parameters", "clip_grad_norm", "get_total_norm"]


def _grads(parameters):
    if isinstance(parameters, Tensor):
        parameters = [parameters]
    return [p.grad for p in parameters if p.grad is not None]


def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    """The ``norm_type``-norm of all ``tensors`` together (as one vector)."""
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


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                    foreach=None):
    """Scale the gradients in place so their joint ``norm_type``-norm is at most
    ``max_norm`` (factor ``max_norm / (norm + 1e-6)``, clamped at 1, as PyTorch); returns
    the norm before clipping."""
    grads = _grads(parameters)
    total = get_total_norm(grads, norm_type, error_if_nonfinite)
    if not grads:
        return total
    coef = (float(max_norm) / (total + 1e-6)).clamp(max=1.0)
    with torch.no_grad():
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_norm(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False,
                   foreach=None):
    import warnings
    warnings.warn("`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
                  "`torch.nn.utils.clip_grad_norm_`.", FutureWarning, stacklevel=2)
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters, clip_value, foreach=None):
    """Clamp every gradient element to ``[-clip_value, clip_value]`` in place."""
    clip_value = float(clip_value)
    with torch.no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def parameters_to_vector(parameters):
    """All parameters flattened and concatenated into one 1-d tensor."""
    if isinstance(parameters, Tensor):
        raise TypeError(f"expected an iterable of Tensors, but got: {type(parameters).__name__}")
    return torch.cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-d ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[pointer:pointer + n].reshape(tuple(p.shape)).data
        pointer += n
