"""GPU backend: the functions of ``ftrans.kernels.cpu``, implemented with CuPy.

Imported only when a CuPy array is seen (``ftrans.kernels.backend_for``) or on explicit
import, so importing CuPy at the top is fine here.  Arrays stay on the device: every
function takes CuPy arrays (0-d arrays and Python scalars where the CPU version
accepts them) and returns CuPy arrays; NumPy array operands are rejected by CuPy with
a ``TypeError``.

Values follow CuPy's ufuncs (CUDA's math library), so transcendental results may
differ from NumPy's in the last bits; dtypes follow CuPy's promotion rules.
"""
from __future__ import annotations

from typing import Any

import cupy as cp
import cupyx
import numpy as np

from . import cpu, _generated
from ._xp_base import UnsupportedOperation

xp = cp

# Same names as the CPU backend, mapped to the CuPy function of the same NumPy name
# (np.negative -> cp.negative, np.true_divide -> cp.divide, np.real -> cp.real, ...).
# (a NumPy function CuPy lacks is written with CuPy's in ``_POLYFILLS`` or left out:
# ``unary``/``binary`` then raise ValueError naming the operation, instead of the whole
# backend failing to import)
_BINARY = {name: getattr(cp, fn.__name__) for name, fn in cpu._BINARY.items()
           if hasattr(cp, fn.__name__)}


def _scalar(a):
    """A NumPy 0-d array as the NumPy scalar it holds (ftrans treats both as scalars,
    CuPy's kernels take only the latter); anything else unchanged."""
    return a[()] if type(a) is np.ndarray and a.ndim == 0 else a


def _spacing(x):
    """``numpy.spacing`` (CuPy has none): the distance from ``x`` to the next
    representable number away from zero, negative for negative ``x``; NaN for
    infinities and NaN, as NumPy's."""
    x = cp.asarray(x)
    x = x.astype(np.spacing(np.zeros(1, x.dtype)).dtype, copy=False)  # (NumPy's dtype)
    return cp.nextafter(x, cp.copysign(cp.asarray(np.inf, x.dtype), x)) - x


# NumPy functions CuPy lacks, written with CuPy's (keyed by the NumPy function)
_POLYFILLS: dict[Any, Any] = {np.spacing: _spacing}
_UNARY = {name: f for name, fn in cpu._UNARY.items()
          if (f := getattr(cp, fn.__name__, None) or _POLYFILLS.get(fn)) is not None}

# Fused derivative products for unary_vjp as CUDA expressions in g, x, y = f(x) of
# one type T; "{c}" is "conj" for complex T (g * conj(f'(x))) and "" for real T.
# Generated from the operation table (kernels/_generated.py).
_VJP_BODY = _generated.VJP_CUDA
_KERNEL_DTYPES = frozenset(np.dtype(t) for t in ("f4", "f8", "c8", "c16"))
_VJP_KERNELS: dict[tuple[str, bool], Any] = {}  # (name, complex?) -> cupy.ElementwiseKernel


def unary(name, x):
    """Elementwise ``f(x)``; CuPy's function of the same NumPy name.

    Args:
        name: as ``cpu.unary``. x: CuPy array (any shape) or scalar.

    Returns:
        CuPy array of ``x``'s shape, CuPy's result dtype (float32 stays float32).

    Raises:
        ValueError: unknown ``name``. TypeError: unsupported dtype or a NumPy array.
    """
    return cpu._lookup(_UNARY, name, "unary")(_scalar(x))


def binary(name, x, y):
    """Elementwise ``f(x, y)`` with broadcasting; CuPy's ufunc of the NumPy name.

    Args:
        name: as ``cpu.binary``. x, y: CuPy arrays (broadcastable) or scalars.

    Returns:
        CuPy array of the broadcast shape.

    Raises:
        ValueError: unknown ``name`` or shapes that do not broadcast.
        TypeError: unsupported dtypes or a NumPy array operand.
    """
    return cpu._lookup(_BINARY, name, "binary")(_scalar(x), _scalar(y))


def unary_vjp(name, g, x, ans=None):
    """Fused ``g * f'(x)`` (``g * conj(f'(x))`` for complex) in one CUDA kernel.

    Args:
        name: as ``cpu.unary_vjp``.
        g: CuPy array broadcastable to ``x`` (e.g. 0-d), or a Python/NumPy scalar.
        x: CuPy array. ans: ``f(x)`` if at hand (recomputed when needed and None).

    Returns:
        CuPy array of the broadcast shape and dtype ``result_type(g, x)`` for
        float32/float64/complex64/complex128 (float16 is computed in float32, and
        integer/bool inputs in float64, as NumPy's formula would return).

    Raises:
        ValueError: unknown ``name`` or ``g`` not broadcastable to ``x``.
        TypeError: ``g`` is a NumPy array (mixing devices).
    """
    body = cpu._lookup(_VJP_BODY, name, "unary_vjp")
    g = _scalar(g)
    if ans is None and name in cpu._VJP_USES_ANS:
        ans = unary(name, x)
    dt = np.result_type(getattr(g, "dtype", g), x.dtype)
    if dt in _KERNEL_DTYPES:
        out_dt = compute_dt = dt
    else:
        compute_dt = np.dtype(np.float32 if dt == np.float16 else np.float64)
        out_dt = dt if dt.kind == "f" else compute_dt
    is_complex = compute_dt.kind == "c"
    kernel = _VJP_KERNELS.get((name, is_complex))
    if kernel is None:
        kernel = _VJP_KERNELS[(name, is_complex)] = cp.ElementwiseKernel(
            "T g, T x, T y", "T out",
            "out = " + body.format(c="conj" if is_complex else ""),
            f"ftrans_vjp_{name}")
    x = x.astype(compute_dt, copy=False)
    y = ans.astype(compute_dt, copy=False) if name in cpu._VJP_USES_ANS else x
    if isinstance(g, cp.ndarray):
        g = g.astype(compute_dt, copy=False)
    out = kernel(g, x, y)  # a NumPy array g is rejected here (TypeError)
    return out.astype(out_dt, copy=False)


def sincos(x):
    """``(cupy.sin(x), cupy.cos(x))``; see ``cpu.sincos``.

    Args:
        x: CuPy array of any shape and dtype CuPy's sin/cos accept, or a scalar.

    Returns:
        Two CuPy arrays of ``x``'s shape and ``cupy.sin``'s dtype.
    """
    x = _scalar(x)
    return cp.sin(x), cp.cos(x)


class _Special:
    """``cupyx.scipy.special`` called with ``scipy.special``'s signatures (what
    ``ftrans.kernels.special_module`` returns for CuPy arrays).

    ``zeta(x)`` (Riemann's) is ``zeta(x, 1)`` (CuPy's needs ``q``); ``polygamma``'s order
    ``n`` is made a CuPy array (CuPy's calls array methods on it); NumPy 0-d arrays are
    passed as scalars.  A function CuPy does not have (CuPy 14: ``jv``, ``yv``, ``iv``,
    ``ive``, ``kv``, ``kve``), or has for real arguments only (``erf``, ``erfc``) and is
    given a complex one, raises :class:`~ftrans.kernels.xp.UnsupportedOperation` (a
    ``NotImplementedError``) naming it; nothing is copied to the host behind the
    caller's back.
    """

    def __getattr__(self, name):
        if name.startswith("_"):  # (copy, pickle and hasattr probe these: not functions)
            raise AttributeError(name)
        import cupyx.scipy.special as csc  # deferred: ~0.1 s, only special functions need it
        fn = getattr(csc, name, None)
        if fn is None:
            raise UnsupportedOperation(
                f"scipy.special.{name}", "cupy.ndarray",
                f"cupyx.scipy.special (CuPy {cp.__version__}) has no {name}: compute it on "
                f"the host (x.get()) and move the result back with cupy.asarray")

        def call(*args):
            args = [_scalar(a) for a in args]
            try:
                return fn(*args)
            except TypeError:
                if any(np.dtype(getattr(a, "dtype", type(a))).kind == "c" for a in args):
                    raise UnsupportedOperation(
                        f"scipy.special.{name} of complex arguments", "cupy.ndarray",
                        f"cupyx.scipy.special (CuPy {cp.__version__}) computes {name} for "
                        f"real arguments only") from None
                raise
        return call

    def zeta(self, x, q=None):
        """Hurwitz's ``zeta(x, q)``; Riemann's ``zeta(x)`` without ``q``: ``zeta(x, 1)``
        for ``x > 1``, else ``zetac(x) + 1`` (the analytic continuation; CuPy's Hurwitz
        zeta is NaN below 1), as SciPy's."""
        if q is not None:
            return self.__getattr__("zeta")(x, q)
        x = cp.asarray(_scalar(x))
        return cp.where(x > 1, self.__getattr__("zeta")(x, 1.0),
                        self.__getattr__("zetac")(x) + 1.0)

    def polygamma(self, n, x):
        return self.__getattr__("polygamma")(cp.asarray(n), x)


special = _Special()

_ATOMIC_ADD_DTYPES = frozenset(
    np.dtype(t) for t in ("f2", "f4", "f8", "i4", "u4", "u8"))


def scatter_add(shape, dtype, index, updates):
    """``z = zeros(shape, dtype); z[index] += updates`` with repeated indices summed.

    Equal to ``np.add.at`` on a zero array (see ``cpu.scatter_add``).  Indices that
    cannot repeat (basic indexing, boolean masks) use ``z[index] += updates``; integer
    array indices use ``cupyx.scatter_add`` (CUDA atomicAdd: float16/32/64, int32,
    uint32, uint64; complex dtypes add real and imaginary parts separately; other
    dtypes use ``cupy.add.at``).  With atomics the order of the additions to one
    element is unspecified, so float sums may differ from NumPy's in the last bits.

    Args:
        shape, dtype: of the result. index: NumPy-style index expression (CuPy
            arrays for the integer/boolean arrays). updates: CuPy array or scalar
            broadcastable to ``z[index]``.

    Returns:
        New CuPy array of ``shape`` and ``dtype``.

    Raises:
        IndexError: invalid index. ValueError: ``updates`` of the wrong shape.
        TypeError: a dtype that neither atomics nor ``cupy.add.at`` support.
    """
    z = cp.zeros(shape, dtype)
    idx = index if type(index) is tuple else (index,)
    if not any(cpu._may_repeat(i) for i in idx):
        z[index] += updates
        return z
    u = cp.asarray(updates, dtype=z.dtype)
    if z.dtype in _ATOMIC_ADD_DTYPES:
        cupyx.scatter_add(z, index, u)
    elif z.dtype.kind == "c":
        # .real / .imag of a complex CuPy array are writable views.
        cupyx.scatter_add(z.real, index, u.real)
        cupyx.scatter_add(z.imag, index, u.imag)
    else:
        cp.add.at(z, index, u)
    return z


def reduce_sum(x, axis, keepdims):
    """``cupy.sum(x, axis=axis, keepdims=keepdims)``; see ``cpu.reduce_sum``."""
    return cp.sum(x, axis=axis, keepdims=keepdims)


def reduce_max(x, axis, keepdims):
    """``cupy.max(x, axis=axis, keepdims=keepdims)``; see ``cpu.reduce_max``."""
    return cp.max(x, axis=axis, keepdims=keepdims)


def reduce_min(x, axis, keepdims):
    """``cupy.min(x, axis=axis, keepdims=keepdims)``; see ``cpu.reduce_min``."""
    return cp.min(x, axis=axis, keepdims=keepdims)


def matmul(a, b):
    """``cupy.matmul(a, b)`` (cuBLAS); see ``cpu.matmul``."""
    return cp.matmul(a, b)


def tensordot(a, b, axes):
    """``cupy.tensordot(a, b, axes)`` (cuBLAS); see ``cpu.tensordot``."""
    return cp.tensordot(a, b, axes)


def einsum(subscripts, *operands):
    """``cupy.einsum(subscripts, *operands)``, contraction order optimised for three
    or more operands; see ``cpu.einsum``."""
    return cp.einsum(subscripts, *operands, optimize=len(operands) > 2)


def where(c, x, y):
    """``cupy.where(c, x, y)``; see ``cpu.where``."""
    return cp.where(_scalar(c), _scalar(x), _scalar(y))
