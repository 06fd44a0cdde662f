"""Helpers of ``torch.distributions`` (``torch.distributions.utils``): ``broadcast_all``,
``lazy_property``, ``probs_to_logits``/``logits_to_probs``, ``clamp_probs``, and
:func:`apply`, which records an ``ftrans`` composition as one compat graph node.

A distribution's ``log_prob``, ``entropy``, ``cdf`` ... is one composition of
:mod:`ftrans.numpy` and :mod:`ftrans.scipy.special` functions of the parameter and value
arrays (:func:`apply`); its backward is ``ftrans.vjp`` of that composition, so gradients
with respect to the parameters (and second derivatives, and ``compat.func`` transforms)
follow from the primitives' own rules.
"""
from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .. import _dtype as D
from .. import _ops as O
from .._factories import tensor
from .._opbase import _compose
from .._tensor import Tensor, Size
from ..autograd._composite import composite_class
from ... import numpy as fnp
from ...scipy import special as fsp
from ...typing import Array
from ..types import SizeLike, TensorOrNumber

__all__ = ["broadcast_all", "lazy_property", "probs_to_logits", "logits_to_probs",
           "clamp_probs", "apply", "sum_rightmost"]

_CLASSES: dict[tuple[str, int], Any] = {}
_NAMES = ("self", "other", "third", "fourth", "fifth", "sixth")


def apply(fn: Callable[..., Array], *args: TensorOrNumber, **params: Any) -> Tensor:
    """Record the ftrans composition ``fn`` of the tensors' arrays as one autograd node.

    The node's backward is ``ftrans.vjp(fn)``.

    Parameters
    ----------
    fn : callable
        ``fn(*arrays, **params) -> array``, a composition of :mod:`ftrans.numpy` and
        :mod:`ftrans.scipy.special` functions.
    *args : Tensor or number
        The operands (numbers become tensors).
    **params : Any
        Static (hashable) keyword arguments of ``fn``.

    Returns
    -------
    Tensor
        ``fn``'s result, differentiable in the tensors of ``args``.
    """
    ts = [a if isinstance(a, Tensor) else tensor(a) for a in args]
    key = (fn.__name__, len(ts))
    cls = _CLASSES.get(key)
    if cls is None:
        name = "".join(w.capitalize() for w in fn.__name__.strip("_").split("_"))
        cls = _CLASSES[key] = composite_class(name + "Backward0", _NAMES[:len(ts)])
    with np.errstate(all="ignore"):   # log(0) = -inf, 0/0 = nan are values here (as torch)
        return _compose(cls, fn, ts, [t._data for t in ts], params)


def broadcast_all(*values: TensorOrNumber) -> tuple[Tensor, ...]:
    """Broadcast tensors and numbers to one shape (``torch.distributions.utils.broadcast_all``).

    Parameters
    ----------
    *values : Tensor or number
        Numbers become tensors of the tensors' dtype (the default dtype if none).

    Returns
    -------
    tuple of Tensor
        The broadcast tensors.

    Raises
    ------
    ValueError
        For an argument that is neither a tensor nor a number.
    """
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, "
                             "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dt = next((v.dtype for v in values if isinstance(v, Tensor)), D.get_default_dtype())
        values = tuple(v if isinstance(v, Tensor) else tensor(v, dtype=dt) for v in values)
    return O.broadcast_tensors(*values)


class lazy_property:  # noqa: N801  (torch's name)
    """A property computed on first access, then cached on the instance (torch's ``lazy_property``).

    Parameters
    ----------
    wrapped : callable
        The getter, ``wrapped(instance) -> value``.
    """

    def __init__(self, wrapped: Callable[[Any], Any]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance: Any, obj_type: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _eps(x: Array) -> float:
    return float(np.finfo(np.dtype(x.dtype)).eps)


def _clamp_probs(p: Array) -> Array:
    e = _eps(p)
    return fnp.clip(p, e, 1 - e)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped to ``[eps, 1 - eps]`` (``torch.distributions.utils.clamp_probs``).

    Parameters
    ----------
    probs : Tensor
        Probabilities.

    Returns
    -------
    Tensor
        Clamped, ``eps`` the machine epsilon of its dtype.
    """
    return apply(_clamp_probs, probs)


def _binary_logits(p: Array) -> Array:
    p = _clamp_probs(p)
    return fnp.log(p) - fnp.log1p(-p)


def _class_logits(p: Array) -> Array:
    return fnp.log(_clamp_probs(p))


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits of probabilities (``torch.distributions.utils.probs_to_logits``).

    Parameters
    ----------
    probs : Tensor
        Probabilities (clamped to ``[eps, 1 - eps]`` first).
    is_binary : bool, optional
        Log-odds ``log(p) - log1p(-p)`` of one event; otherwise ``log(p)`` of the
        categories.

    Returns
    -------
    Tensor
        ``probs``' shape.
    """
    return apply(_binary_logits if is_binary else _class_logits, probs)


def _sigmoid(x: Array) -> Array:
    return fsp.expit(x)


def _softmax_last(x: Array) -> Array:
    return fsp.softmax(x, axis=-1)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities of logits (``torch.distributions.utils.logits_to_probs``).

    Parameters
    ----------
    logits : Tensor
        Logits.
    is_binary : bool, optional
        The sigmoid of log-odds; otherwise the softmax over the last dimension.

    Returns
    -------
    Tensor
        ``logits``' shape.
    """
    return apply(_sigmoid if is_binary else _softmax_last, logits)


def sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """Sum of the ``dim`` rightmost dimensions of ``value`` (torch's ``_sum_rightmost``).

    Parameters
    ----------
    value : Tensor
        A tensor.
    dim : int
        How many trailing dimensions to sum over (0: ``value`` itself).

    Returns
    -------
    Tensor
        ``value`` without its last ``dim`` dimensions.
    """
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def size(shape: SizeLike | int) -> Size:
    """A ``torch.Size`` of a size argument (``Size``, tuple, list, int)."""
    if isinstance(shape, (int, np.integer)):
        return Size((int(shape),))
    return Size(tuple(int(s) for s in shape))
