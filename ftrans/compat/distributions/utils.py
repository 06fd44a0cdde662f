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

import numpy as np

from .. import _dtype as D
from .. import _ops as O
from .._factories import tensor
from .._opbase import _compose
from .._tensor import Tensor, Size
from ..autograd._composite import composite_class
from ... import numpy as fnp
from ...scipy import special as fsp

__all__ = ["broadcast_all", "lazy_property", "probs_to_logits", "logits_to_probs",
           "clamp_probs", "apply", "sum_rightmost"]

_CLASSES: dict = {}
_NAMES = ("self", "other", "third", "fourth", "fifth", "sixth")


def apply(fn, *args, **params):
    """``fn(*datas, **params)`` -- an ftrans composition of the arrays of the tensors
    ``args`` (numbers become tensors) -- as one compat node whose backward is
    ``ftrans.vjp(fn)``; ``params`` are static (hashable) keyword arguments."""
    ts = [a if isinstance(a, Tensor) else tensor(a) for a in args]
    key = (fn.__name__, len(ts))
    cls = _CLASSES.get(key)
    if cls is None:
        name = "".join(w.capitalize() for w in fn.__name__.strip("_").split("_"))
        cls = _CLASSES[key] = composite_class(name + "Backward0", _NAMES[:len(ts)])
    with np.errstate(all="ignore"):   # log(0) = -inf, 0/0 = nan are values here (as torch)
        return _compose(cls, fn, ts, [t._data for t in ts], params)


def broadcast_all(*values):
    """``torch.distributions.utils.broadcast_all``: tensors and numbers broadcast to one
    shape; numbers become tensors of the tensors' dtype (the default dtype if none);
    ``ValueError`` for anything else."""
    for v in values:
        if not isinstance(v, (Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, "
                             "torch.Tensor or objects implementing __torch_function__.")
    if not all(isinstance(v, Tensor) for v in values):
        dt = next((v.dtype for v in values if isinstance(v, Tensor)), D.get_default_dtype())
        values = [v if isinstance(v, Tensor) else tensor(v, dtype=dt) for v in values]
    return O.broadcast_tensors(*values)


class lazy_property:  # noqa: N801  (torch's name)
    """``torch.distributions.utils.lazy_property``: computed on first access, then cached
    on the instance."""

    def __init__(self, wrapped):
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return self
        value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def _eps(x):
    return float(np.finfo(np.dtype(x.dtype)).eps)


def _clamp_probs(p):
    e = _eps(p)
    return fnp.clip(p, e, 1 - e)


def clamp_probs(probs):
    """``torch.distributions.utils.clamp_probs``: ``probs`` clamped to ``[eps, 1 - eps]``."""
    return apply(_clamp_probs, probs)


def _binary_logits(p):
    p = _clamp_probs(p)
    return fnp.log(p) - fnp.log1p(-p)


def _class_logits(p):
    return fnp.log(_clamp_probs(p))


def probs_to_logits(probs, is_binary=False):
    """``torch.distributions.utils.probs_to_logits``."""
    return apply(_binary_logits if is_binary else _class_logits, probs)


def _sigmoid(x):
    return fsp.expit(x)


def _softmax_last(x):
    return fsp.softmax(x, axis=-1)


def logits_to_probs(logits, is_binary=False):
    """``torch.distributions.utils.logits_to_probs``."""
    return apply(_sigmoid if is_binary else _softmax_last, logits)


def sum_rightmost(value, dim):
    """Sum of the ``dim`` rightmost dimensions of ``value``."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[:-dim]) + (-1,)).sum(-1)


def size(shape):
    """A ``torch.Size`` of a size argument (``Size``, tuple, list)."""
    if isinstance(shape, (int, np.integer)):
        return Size((int(shape),))
    return Size(tuple(int(s) for s in shape))
