"""The closed set of primitives and their ops (thin ``bind`` wrappers).

Each primitive defines its impl (through :mod:`ftrans.kernels`), abstract
evaluation, JVP rule, VJP rule -- and, from the vmap issue on, its batching rule
-- in one place.  Rules call the ops below, never raw NumPy, so they can be
differentiated again.
"""
from .elementwise import (neg, add, sub, mul, div, pow, integer_pow, exp, log, log1p, expm1,
                          sin, cos, tan, tanh, sinh, cosh, arcsin, arccos, arctan, arctan2,
                          sqrt, abs, sign, maximum, minimum, logaddexp, conj_op as conj)
from .logic import (eq, ne, lt, le, gt, ge, logical_and, logical_or, logical_xor, logical_not,
                    isfinite, isnan, isinf, floor, ceil, round, floor_divide)
from .select import where
from .convert import convert_element_type, real, imag, stop_gradient
from .structural import (reshape, transpose, broadcast_to, squeeze, expand_dims, concatenate,
                         reduce_sum, zeros_of)
from .reductions import reduce_max, reduce_min, reduce_prod, argmax, argmin
from .indexing import gather, scatter_add
from .scan import cumsum, argsort
from .dot import dot_general
from . import linalg  # noqa: F401  (solve, cholesky, eigh, svd, qr, det ...: P.linalg.<op>)
from . import special, fft  # noqa: F401  (erf, gammaln, polygamma ...; the fft primitive)
from ._rules import unbroadcast, fit
from .conv import conv_general_dilated
from .window import reduce_window, reduce_window_sum, reduce_window_max, reduce_window_argmax
