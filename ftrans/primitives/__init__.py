"""The closed set of primitives and their ops (thin ``bind`` wrappers).

Each primitive defines its impl (through :mod:`ftrans.kernels`), abstract
evaluation, JVP rule, VJP rule -- and, from the vmap issue on, its batching rule
-- in one place.  Rules call the ops below, never raw NumPy, so they can be
differentiated again.
"""
from .elementwise import (neg, add, sub, mul, div, pow, integer_pow, abs, sign, maximum,
                          minimum, conj_op as conj, ROW_OPS)
from . import optable
from .logic import (eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, logical_not,
                    isfinite, isnan, isinf, floor, ceil, round, floor_divide)
from .select import where
from .convert import convert_element_type, real, imag, stop_gradient, stop_backward
from .structural import (reshape, transpose, broadcast_to, squeeze, expand_dims, concatenate,
                         reduce_sum, zeros_of)
from .reductions import reduce_max, reduce_min, reduce_prod, argmax, argmin
from .indexing import gather, scatter_add
from .scan import cumsum, argsort
from .dot import dot_general
from .name import checkpoint_name
from . import linalg  # noqa: F401  (solve, cholesky, eigh, svd, qr, det ...: P.linalg.<op>)
from . import special, fft  # noqa: F401  (erf, gammaln, polygamma ...; the fft primitive)
from . import special_scipy  # noqa: F401  (gammainc, betainc, ndtr, zeta, Bessel jv ...)
from . import iir  # noqa: F401  (iir_filter: scipy.signal.lfilter's recursion)
from . import bitwise  # noqa: F401  (integer_elementwise: bitwise, shifts, gcd, lcm)
from .prng import threefry2x32
from ._rules import unbroadcast, fit
from .conv import conv_general_dilated
from .patches import conv_patches, conv_patches_transpose
from .window import reduce_window, reduce_window_sum, reduce_window_max, reduce_window_argmax

# The rows of the operation table (optable.py): every row's op is ``primitives.<name>``
# (exp, log, sin ... arctan2, logaddexp, copysign, trunc, i0 ...).
globals().update(ROW_OPS)
from .callback import pure_callback, ShapeDtypeStruct  # noqa: E402,F401  (host functions)
from .dynamic_slice import dynamic_slice_op, dynamic_update_slice_op  # noqa: E402,F401
