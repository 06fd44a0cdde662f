"""``ftrans.compat``: PyTorch's imperative autograd surface on ftrans primitives.

>>> import ftrans.compat as torch
>>> x = torch.tensor([1.0, 2.0], requires_grad=True)
>>> y = (x.sin() * x).sum()
>>> y.backward()
>>> x.grad                                        # doctest: +SKIP
tensor([...])

Tensors wrap NumPy arrays.  Every differentiable operation goes through ftrans's
primitives: the forward pass runs their kernels, the backward pass their VJP rules --
the rules ``ftrans.grad``/``ftrans.vjp`` use -- recorded in a dynamic graph of nodes
named as PyTorch names them (``MulBackward0`` ...).  Behaviour follows PyTorch's autograd
documentation (see ``DESIGN.md``, "Compat API"); ``ftrans.compat.autograd`` holds
``backward``, ``grad``, the grad modes and the graph.
"""
from __future__ import annotations

import builtins
from typing import Any

from . import _dtype
from ._dtype import (dtype, float16, float32, float64, complex64, complex128, int8, int16,
                     int32, int64, uint8, half, double, cfloat, cdouble, short, long,
                     get_default_dtype, set_default_dtype)
from ._dtype import bool_ as bool  # noqa: A001
from ._dtype import float as float  # noqa: A001,F401  (torch.float is float32)
from ._dtype import int as int  # noqa: A001,F401  (torch.int is int32)
from . import autograd  # first: _tensor, _ops and autograd's modules import autograd's lower ones
from ._tensor import Tensor, Size, device
from . import _ops, _methods  # noqa: F401  (installs the Tensor methods)
from ._ops import (  # noqa: F401
    exp, exp2, log, log2, log10, log1p, expm1, sin, cos, tan, tanh, sinh, cosh, asin, arcsin,
    acos, arccos, atan, arctan, atan2, arctan2, sqrt, rsqrt, reciprocal, neg, negative, abs,
    absolute, sign, sgn, square, sigmoid, relu, floor, ceil, round, trunc, conj, real, imag,
    add, sub, subtract, rsub, mul, multiply, div, divide, true_divide, pow, float_power,
    maximum, minimum, clamp, clip, clamp_min, clamp_max, where, masked_fill,
    eq, ne, lt, le, gt, ge, greater, less, greater_equal, less_equal, not_equal, equal,
    allclose, isclose, isnan, isinf, isfinite, logical_and, logical_or, logical_xor,
    logical_not, floor_divide, remainder, fmod,
    sum, nansum, mean, prod, max, min, amax, amin, argmax, argmin, any, all, norm, var, std,
    logsumexp, softmax, log_softmax,
    reshape, flatten, unflatten, squeeze, unsqueeze, transpose, swapaxes, swapdims, t, permute,
    movedim, moveaxis, broadcast_to, broadcast_tensors, narrow, select, split, chunk, unbind,
    index_select, gather, flip, tril, triu, diagonal, diag, trace, cat, concat, concatenate,
    stack, hstack, vstack, atleast_1d, atleast_2d, atleast_3d,
    matmul, mm, mv, dot, inner, bmm, outer, ger, clone,
    angle, polar, view_as_real, view_as_complex, conj_physical, resolve_conj, resolve_neg,
    is_conj, is_neg,
)
from ._ops import complex_ as complex  # noqa: A001,F401  (torch.complex(real, imag))
# every row of the operation table with a torch name (copysign, i0, ldexp, ...)
globals().update(_ops.ROW_FUNCTIONS)
from ._ops import erf  # noqa: F401,E402  (torch.erf; nn.functional.gelu uses it)
from ._einsum import einsum  # noqa: F401  (composed of the operations of _ops)
from ._factories import (  # noqa: F401
    tensor, as_tensor, from_numpy, zeros, ones, empty, full, arange, linspace, logspace, eye,
    zeros_like, ones_like, empty_like, full_like, manual_seed, seed, initial_seed, Generator,
    default_generator, get_rng_state, set_rng_state, set_default_device, get_default_device,
)
from ._random_factories import (  # noqa: F401
    rand, randn, randint, randperm, rand_like, randn_like, randint_like)
from .autograd import (no_grad, enable_grad, set_grad_enabled, inference_mode,  # noqa: F401
                       is_grad_enabled, is_inference_mode_enabled)
# operator families and namespaces added as adapters (issue 23): each module's __all__ names
# torch functions, its METHODS dict Tensor methods, a namespace's TOPLEVEL dict torch.* aliases
from . import _sort_ops, _index_ops, _misc_ops, _special_ops, _sampling  # noqa: E402
from . import linalg, fft, special, signal  # noqa: E402,F401
for _m in (_sort_ops, _index_ops, _misc_ops, _special_ops, _sampling, linalg, fft, special):
    if _m in (_sort_ops, _index_ops, _misc_ops, _special_ops, _sampling):
        globals().update({_n: getattr(_m, _n) for _n in _m.__all__})
    globals().update(getattr(_m, "TOPLEVEL", {}))
    for _n, _f in _m.METHODS.items():
        setattr(Tensor, _n, _f)
del _m
from . import optim, utils, cuda, func, serialization  # noqa: E402,F401
from .serialization import save, load  # noqa: E402,F401
from . import _out  # noqa: E402
from .types import TensorOrNumber as _TensorOrNumber  # noqa: E402

for _n in _out.OUT_FUNCTIONS:   # out= keyword on the module-level functions
    globals()[_n] = _out.with_out(globals()[_n], _n)
del _n
from .autograd.anomaly_mode import (is_anomaly_enabled, is_anomaly_check_nan_enabled,  # noqa: F401
                                    set_anomaly_enabled)

__version__ = "2.13.0+ftrans"


def is_tensor(obj: object) -> builtins.bool:
    """Whether ``obj`` is a compat Tensor (``torch.is_tensor``).

    Parameters
    ----------
    obj : object
        Any object.

    Returns
    -------
    bool
        ``isinstance(obj, Tensor)``.
    """
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> builtins.int:  # noqa: A002
    """The number of elements of ``input`` (``torch.numel``).

    Parameters
    ----------
    input : Tensor
        The tensor.

    Returns
    -------
    int
        The product of its sizes.
    """
    return input.numel()


def is_floating_point(input: Tensor) -> builtins.bool:  # noqa: A002
    """Whether ``input``'s dtype is floating (``torch.is_floating_point``).

    Parameters
    ----------
    input : Tensor
        The tensor.

    Returns
    -------
    bool
        True for float16/32/64.
    """
    return input.is_floating_point()


def is_complex(input: Tensor) -> builtins.bool:  # noqa: A002
    """Whether ``input``'s dtype is complex (``torch.is_complex``).

    Parameters
    ----------
    input : Tensor
        The tensor.

    Returns
    -------
    bool
        True for complex64/128.
    """
    return input.is_complex()


def detach(input: Tensor) -> Tensor:  # noqa: A002
    """``input.detach()`` (``torch.detach``).

    Parameters
    ----------
    input : Tensor
        The tensor.

    Returns
    -------
    Tensor
        A tensor sharing ``input``'s storage, detached from the graph.
    """
    return input.detach()


def zero_(input: Tensor) -> Tensor:  # noqa: A002
    """``input.zero_()`` (``torch.zero_``).

    Parameters
    ----------
    input : Tensor
        The tensor, filled with zeros in place.

    Returns
    -------
    Tensor
        ``input``.
    """
    return input.zero_()


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """PyTorch's promotion of two dtypes (``torch.promote_types``).

    Parameters
    ----------
    type1, type2 : dtype
        The dtypes.

    Returns
    -------
    dtype
        Like NumPy's promotion, except that an integer or bool with a floating or
        complex dtype gives that dtype (int64 with float32 is float32).
    """
    return _dtype.from_np(_dtype.promote_types(type1.np, type2.np))


def result_type(tensor1: _TensorOrNumber, tensor2: _TensorOrNumber) -> dtype:
    """The dtype of an operation on ``tensor1`` and ``tensor2`` (``torch.result_type``).

    Parameters
    ----------
    tensor1, tensor2 : Tensor or Number
        The operands.

    Returns
    -------
    dtype
        PyTorch's result dtype (dimensioned tensors before 0-d ones before Python numbers).
    """
    return _dtype.from_np(_ops._promote_datas((tensor1, tensor2)))


def set_printoptions(**kwargs: Any) -> None:
    """Set the print options of tensors (``torch.set_printoptions``).

    Parameters
    ----------
    **kwargs : Any
        ``precision``, ``threshold``, ``edgeitems`` and ``linewidth`` are passed to
        :func:`numpy.set_printoptions`; other options are ignored.
    """
    import numpy as _np
    _np.set_printoptions(**{k: v for k, v in kwargs.items()
                            if k in ("precision", "threshold", "edgeitems", "linewidth")})

from . import nn  # noqa: E402,F401  (torch.nn; written against the names above)
from . import distributions  # noqa: E402,F401  (on nn's and the names above)
from ._compile import compile  # noqa: E402,F401,A001  (torch.compile, on nn's modules)
from . import compiler, _dynamo  # noqa: E402,F401  (torch.compiler, torch._dynamo)
