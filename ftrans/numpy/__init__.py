"""``ftrans.numpy``: NumPy's API written in differentiable ftrans primitives.

``import ftrans.numpy as fnp`` and write NumPy code; every function here can be
differentiated and nested under every transform.  Names, signatures, broadcasting
and dtype promotion follow NumPy 2.  A NumPy name that is not (yet) provided
raises ``AttributeError`` naming it -- never a silent NumPy fallback that would
break differentiation.
"""
from typing import NoReturn as _NoReturn

import numpy as _np

from ._funcs import *  # noqa: F401,F403
from ._funcs import (array, asarray, zeros, ones, empty, full, zeros_like, ones_like, empty_like,
                     full_like, arange, eye, identity, add, subtract, multiply, divide,
                     true_divide, maximum, minimum, arctan2, logaddexp, negative, positive, exp,
                     log, log1p, expm1, sin, cos, tan, tanh, sinh, cosh, arcsin, arccos, arctan,
                     sqrt, absolute, abs, fabs, sign, conjugate, conj, real, imag, floor, ceil,
                     isfinite, isnan, isinf, logical_not, equal, not_equal, less, less_equal,
                     greater, greater_equal, logical_and, logical_or, logical_xor, power, square,
                     reciprocal, cbrt, exp2, log2, log10, logaddexp2, arcsinh, arccosh, arctanh,
                     hypot, deg2rad, rad2deg, radians, degrees, angle, sinc, round, around,
                     floor_divide, where, clip, sum, mean, var, std, max, min, amax, amin, prod,
                     argmax, argmin, shape, ndim, size, reshape, ravel, transpose, swapaxes,
                     moveaxis, squeeze, expand_dims, broadcast_to, atleast_1d, atleast_2d,
                     concatenate, stack, vstack, hstack, matmul, dot, tensordot, inner, outer,
                     vdot, trace, astype)
from ._indexing import take, take_along_axis, put_along_axis, at  # noqa: F401
from ._shape import (atleast_1d, atleast_2d, atleast_3d, dstack, column_stack,  # noqa: F401
                     broadcast_arrays, meshgrid, pad, tile, repeat, flip, fliplr, flipud, roll,
                     rot90, split, array_split, hsplit, vsplit, dsplit, unstack, tril, triu,
                     diag, diagonal, diagflat, append, delete, compress, extract, concat,
                     permute_dims, matrix_transpose)
from ._reductions import (cumsum, cumprod, cumulative_sum, cumulative_prod,  # noqa: F401
                          nancumsum, nancumprod, diff, ediff1d, sort, argsort, sort_complex,
                          partition, argpartition)
from ._quantiles import (median, quantile, percentile, nanmedian, nanquantile,  # noqa: F401
                         nanpercentile)
from ._nanreductions import (average, nanmax, nanmin, nansum, nanprod, nanmean,  # noqa: F401
                             nanvar, nanstd, nanargmax, nanargmin, ptp, all, any,
                             count_nonzero)
from . import _methods  # noqa: F401  (installs Tracer operators and methods)
from . import _ufuncs  # noqa: F401  (installs NumPy's dispatch protocols, NEP 13/18, on tracers)
from ._contract import einsum, kron, cross  # noqa: F401
from . import linalg  # noqa: F401  (fnp.linalg: differentiable numpy.linalg)
from ._misc import nan_to_num  # noqa: F401
from . import fft  # noqa: F401  (fnp.fft: differentiable numpy.fft)
# --- issue 19 (h-np1): searching/counting, sets, choosing/placing, index tricks, conversion ---
from ._search import (nonzero, argwhere, flatnonzero, searchsorted, digitize,  # noqa: F401
                      lexsort, bincount, histogram, histogram_bin_edges, histogram2d,
                      histogramdd)
from ._sets import (unique, unique_all, unique_counts, unique_inverse,  # noqa: F401
                    unique_values, intersect1d, union1d, setdiff1d, setxor1d, isin)
from ._select import (choose, select, piecewise, insert, resize, trim_zeros,  # noqa: F401
                      rollaxis, block, put, place, putmask, fill_diagonal, copyto)
from ._index_tricks import (r_, c_, ix_, indices, tril_indices,  # noqa: F401
                            tril_indices_from, triu_indices, triu_indices_from, diag_indices,
                            diag_indices_from, mask_indices, unravel_index, ravel_multi_index,
                            tri, fromfunction, fromiter)
from ._construct import (copy, asanyarray, asarray_chkfinite,  # noqa: F401
                         ascontiguousarray, asfortranarray, require, broadcast_shapes,
                         isclose, allclose, array_equal, array_equiv, iscomplex, isreal,
                         iscomplexobj, isrealobj, real_if_close, result_type)
# --- end h-np1 ---
# -- issue 19 (h-np2): signal, polynomials, statistics, calculus, integer functions --
from ._signal import (convolve, correlate, interp, unwrap, bartlett, blackman,  # noqa: F401
                      hamming, hanning, kaiser)
from ._poly import (poly, polyadd, polysub, polymul, polydiv, polyder, polyint,  # noqa: F401
                    polyval, polyfit, roots, vander)
from ._stats import cov, corrcoef  # noqa: F401
from ._calc import (gradient, trapezoid, linspace, logspace, geomspace, matvec, vecmat,  # noqa: F401
                    apply_along_axis, apply_over_axes)
from .linalg import vecdot  # noqa: F401  (numpy.vecdot: numpy.linalg.vecdot's gufunc)
from ._bitwise import (bitwise_and, bitwise_or, bitwise_xor, bitwise_not,  # noqa: F401
                       bitwise_invert, invert, bitwise_count, bitwise_left_shift,
                       bitwise_right_shift, left_shift, right_shift, gcd, lcm)

# the star import above also brought _funcs' own imports (np, P, Tracer, builtins ...):
# they are not NumPy API, and fnp.np.<name> would be a silent non-differentiable path
for _name in ("np", "P", "Tracer", "builtins", "operator", "annotations", "ROW_FUNCTIONS",
              "Any", "Array", "ArrayLike", "Axis", "DTypeLike", "ShapeLike", "Callable",
              "Iterator", "Sequence"):
    globals().pop(_name, None)
from ..primitives import stop_gradient  # noqa: F401
from ._refused import refusal as _refusal

pi = _np.pi
e = _np.e
inf = _np.inf
nan = _np.nan
newaxis = None
ndarray = _np.ndarray
dtype = _np.dtype
float16, float32, float64 = _np.float16, _np.float32, _np.float64
complex64, complex128 = _np.complex64, _np.complex128
int8, int16, int32, int64 = _np.int8, _np.int16, _np.int32, _np.int64
uint8, uint32, uint64 = _np.uint8, _np.uint32, _np.uint64
bool_ = _np.bool_
finfo, iinfo = _np.finfo, _np.iinfo


def __getattr__(name: str) -> _NoReturn:
    refused = _refusal("ftrans.numpy", name)
    if refused is not None:
        raise refused
    if hasattr(_np, name):
        raise AttributeError(
            f"ftrans.numpy has no attribute {name!r}: numpy.{name} is not implemented in "
            f"ftrans.numpy yet. Calling numpy.{name} directly on traced values cannot be "
            "differentiated; write it with the functions ftrans.numpy provides, or open an "
            "issue.")
    raise AttributeError(f"module 'ftrans.numpy' has no attribute {name!r}")
