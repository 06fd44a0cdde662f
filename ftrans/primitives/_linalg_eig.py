"""The general (non-Hermitian) eigendecomposition ``eig`` (:mod:`ftrans.primitives.linalg`).

``eig(a) -> (w, v)``: eigenvalues and right eigenvectors (columns) of square (stacks of)
matrices, always complex (``complex64`` for ``float32``/``complex64`` input, else
``complex128``; JAX's choice: NumPy returns a real dtype when every imaginary part is 0,
a dtype that depends on the values cannot be traced).  Eigenvectors have unit 2-norm
(LAPACK ``geev``'s normalization, NumPy's and JAX's).

Rules (JAX's ``eig_jvp_rule``; PyTorch's ``linalg_eig_backward``; Giles 2008, "An
extended collection of matrix derivative results", 3.1): with ``A V = V diag(w)``,
``X = V^{-1} dA V`` and ``F_ij = 1/(w_j - w_i)`` (0 on the diagonal)::

    dw = diag(X)
    dU = V (F o X)
    dV = dU - V diag(Re diag(V^H dU))         (keeps ||v_j|| = 1 to first order)

and the VJP is its adjoint for ``Re<a, b>`` (DESIGN.md's complex convention)::

    gU = gV - V diag(Re diag(V^H gV))
    gA = V^{-H} (diag(gw) + conj(F) o (V^H gU)) V^H      (real part for real ``a``)

Limits.  An eigenvector is defined up to a phase ``e^{it}``; the unit-norm condition
fixes its length only, so derivatives of the eigenvectors are meaningful for losses
invariant under ``v_j -> e^{it} v_j`` (as JAX and PyTorch document).  The derivative
of an individual eigenvalue does not exist where two eigenvalues coincide (and ``V`` is
singular for a defective matrix): with concrete values (no ``jit``/``vmap``) the rules
raise ``ValueError`` at exactly repeated eigenvalues; inside ``jit``/``vmap`` the factor
``1/(w_j - w_i)`` is ``inf`` there and the derivative is non-finite (never a finite wrong
number).  Near-repeated eigenvalues give large, ill-conditioned derivatives.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive, ShapedArray, zero, Tracer
from ..core.dtypes import kind_of, as_numpy_dtype
from ..kernels import backend_for
from .structural import expand_dims, reduce_sum
from .elementwise import add, sub, mul, div
from .convert import real
from .select import where
from ._rules import conj
from ._linalg_common import _H, _batch_front, _cast, _diag_embed, _diag_part, _eye_mask, _mm
from ._linalg_solve import solve

__all__ = ["eig"]

eig_p = _batch_front(Primitive("eig", multiple_results=True))
# compiled: the impl in an objmode block of the segment (ftrans.compiler._numba_linalg)
eig_p.lowering = {"kind": "objmode"}


def _complex_dtype(dtype):
    return np.dtype(np.complex64) if as_numpy_dtype(dtype) in (np.float32, np.complex64) \
        else np.dtype(np.complex128)


@eig_p.def_impl
def _eig_impl(a):
    ct = _complex_dtype(a.dtype)
    be = backend_for(a)
    xp = be.xp
    name = getattr(be, "__name__", "")
    if name.endswith("gpu"):  # CuPy has no general eig: computed on the host
        w, v = np.linalg.eig(xp.asnumpy(a))
        w, v = xp.asarray(w), xp.asarray(v)
    elif xp is np or name.endswith("dask"):  # Dask: lazily, NumPy's on each matrix
        w, v = xp.linalg.eig(a)
    else:  # the array API standard has no general eig
        be.unsupported("numpy.linalg.eig")
    return w.astype(ct), v.astype(ct)


@eig_p.def_abstract_eval
def _eig_abstract(a):
    ct = _complex_dtype(a.dtype)
    return ShapedArray(a.shape[:-1], ct), ShapedArray(a.shape, ct)


def _check_distinct(w):
    """Raise at exactly repeated eigenvalues when the values are concrete."""
    while isinstance(w, Tracer):
        w = getattr(w, "primal", None)
        if w is None:
            return
    w = np.asarray(w.get() if hasattr(w, "get") else w)  # (CuPy: read on the host)
    n = w.shape[-1]
    if n < 2:
        return
    d = w[..., :, None] - w[..., None, :]
    tie = (d == 0) & ~np.eye(n, dtype=bool)
    if tie.any():
        raise ValueError(
            "eig: the derivative is undefined at repeated eigenvalues (got eigenvalues "
            f"{w[np.nonzero(tie.any(-1))[:-1]] if w.ndim > 1 else w}); differentiate a "
            "symmetric function of them instead (trace, det), use eigh for Hermitian "
            "matrices, or perturb the input")


def _recip_gap(w):
    """``F[..., i, j] = 1/(w_j - w_i)``, 0 on the diagonal, inf at off-diagonal ties."""
    nd = len(w.shape)
    diff = sub(expand_dims(w, (nd - 1,)), expand_dims(w, (nd,)))
    diag = _eye_mask(w.shape[-1], w)
    return where(diag, 0.0, div(1.0, where(diag, 1.0, diff)))


def _re_diag_vh(v, m):
    """``Re diag(V^H M)`` as ``(..., 1, n)``: the columnwise ``Re <v_j, m_j>``."""
    s = reduce_sum(real(mul(conj(v), m)), (len(v.shape) - 2,))
    return expand_dims(s, (len(v.shape) - 2,))


@eig_p.def_jvp
def _eig_jvp(primals, tangents):
    (a,), (ta,) = primals, tangents
    w, v = eig_p.bind(a)
    if ta is zero:
        return (w, v), (zero, zero)
    _check_distinct(w)
    x = _mm(solve(v, _cast(ta, v.dtype)), v)                 # V^{-1} dA V
    dw = _diag_part(x)
    du = _mm(v, mul(_recip_gap(w), x))                       # V (F o X)
    dv = sub(du, mul(v, _cast(_re_diag_vh(v, du), v.dtype)))
    return (w, v), (dw, dv)


@eig_p.def_vjp
def _eig_vjp(cts, ans, primals, needs):
    (a,) = primals
    gw, gv = cts
    w, v = ans
    if gw is zero and gv is zero:
        return [None]
    _check_distinct(w)
    if gv is zero:
        inner = _diag_embed(_cast(gw, v.dtype))
    else:
        gv = _cast(gv, v.dtype)
        gu = sub(gv, mul(v, _cast(_re_diag_vh(v, gv), v.dtype)))
        inner = mul(conj(_recip_gap(w)), _mm(_H(v), gu))
        if gw is not zero:
            inner = add(inner, _diag_embed(_cast(gw, v.dtype)))
    g = solve(_H(v), _mm(inner, _H(v)))                       # V^{-H} (...) V^H
    if kind_of(a) != "c":
        g = real(g)
    return [_cast(g, a.dtype)]


def eig(a):
    """``(w, v)``: complex eigenvalues and unit right eigenvectors (columns) of the square
    (stacks of) matrices ``a`` (see the module docstring for the rules and limits)."""
    return eig_p.bind(a)
