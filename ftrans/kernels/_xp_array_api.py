"""The array-API backend of :mod:`ftrans.kernels.xp`: kernels written with the Python array
API standard's functions only, on an array's own namespace."""
from __future__ import annotations

import functools
import operator

import numpy as np

from . import _generated, cpu
from ._xp_base import MixedArrayTypesError, _BackendBase, _NumpyNames, _is_py_scalar

__all__ = ["ArrayAPIBackend"]


# ---------------------------------------------------------------------------------
# any array API namespace
# ---------------------------------------------------------------------------------
class _ArrayAPILinalg:
    """``numpy.linalg``'s signatures on the standard's ``linalg`` extension."""

    def __init__(self, backend):
        self._b = backend
        self._la = getattr(backend.ns, "linalg", None)
        if self._la is None:
            backend.unsupported("the linalg extension")

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = getattr(self._la, name, None)
        if fn is None:
            self._b.unsupported(f"numpy.linalg.{name}")
        return fn

    def _hermitian(self, a, lower):
        """The Hermitian matrix whose ``lower``/upper triangle is ``a``'s (NumPy's
        ``eigh`` reads one triangle only; the standard's assumes symmetry)."""
        ns = self._b.ns
        tri = ns.tril(a, k=-1) if lower else ns.triu(a, k=1)
        perm = tuple(range(a.ndim - 2)) + (a.ndim - 1, a.ndim - 2)
        d = self._la.diagonal(a)
        if ns.isdtype(a.dtype, "complex floating"):
            d = ns.astype(ns.real(d), a.dtype)
        eye = ns.eye(a.shape[-1], dtype=a.dtype)
        return tri + ns.conj(ns.permute_dims(tri, perm)) + d[..., None] * eye

    def eigh(self, a, UPLO="L"):
        return self._la.eigh(self._hermitian(a, UPLO == "L"))

    def svd(self, a, full_matrices=True, compute_uv=True):
        if not compute_uv:
            return self._la.svdvals(a)
        return self._la.svd(a, full_matrices=full_matrices)

    def pinv(self, a, rcond=None, hermitian=False):
        return self._la.pinv(a, rtol=rcond)


# ---------------------------------------------------------------------------------
_DTYPE_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                "uint64", "float32", "float64", "complex64", "complex128")

_UNARY_STD = {
    **_generated.UNARY_STD,  # the rows of the operation table (ftrans/primitives/optable.py)
    "neg": "negative", "abs": "abs", "sign": "sign", "conj": "conj", "real": "real",
    "imag": "imag", "square": "square",
}
_BINARY_OPS = {"add": operator.add, "sub": operator.sub, "mul": operator.mul,
               "div": operator.truediv, "pow": operator.pow, "floordiv": operator.floordiv,
               "rem": operator.mod}
_BINARY_STD = {**_generated.BINARY_STD, "maximum": "maximum", "minimum": "minimum"}

# g * f'(x) (y = f(x)) in the standard's functions; ``s`` is the namespace.
_VJP_STD = _generated.VJP_STD


class ArrayAPIBackend(_BackendBase):
    """Kernels for one array API namespace (``x.__array_namespace__()``).

    dtypes: ftrans describes dtypes with NumPy's ``numpy.dtype`` objects (abstract
    values, promotion rules); this backend maps them to the namespace's dtype objects
    by name (``float64`` -> ``ns.float64``) wherever a dtype is passed in.
    """

    __name__ = "ftrans.kernels.xp.array_api"

    def __init__(self, ns, array_type):
        self.ns = ns
        self.array_type = array_type
        self.xp = _NumpyNames(self)
        self._to_ns = {}
        for n in _DTYPE_NAMES:
            d = getattr(ns, n, None)
            if d is not None:
                self._to_ns[np.dtype(n)] = d

    # dtypes --------------------------------------------------------------------------
    def dtype(self, dtype):
        """The namespace's dtype object for a NumPy dtype (or dtype-like)."""
        if dtype is None:
            return None
        try:
            key = np.dtype(dtype)
        except TypeError:
            return dtype  # already the namespace's
        d = self._to_ns.get(key)
        if d is None:
            self.unsupported(f"dtype {key}")
        return d

    def _scalar_like(self, s, other):
        """A Python scalar as a 0-d array of the namespace (weak typing: it takes
        ``other``'s dtype when of the same kind)."""
        if not _is_py_scalar(s):
            return s
        ns = self.ns
        dt = getattr(other, "dtype", None)
        if dt is not None:
            if isinstance(s, complex) and not ns.isdtype(dt, "complex floating"):
                dt = ns.complex128 if dt == ns.float64 else ns.complex64
            elif isinstance(s, float) and not ns.isdtype(dt, ("real floating",
                                                              "complex floating")):
                dt = None
        return ns.asarray(s, dtype=dt)

    def _wrap(self, fn):
        """The namespace's function, NumPy scalars and 0-d arrays among its positional
        arguments passed as Python scalars (ftrans's rules make such constants); a
        larger NumPy array raises :class:`MixedArrayTypesError`."""
        conv = self._numpy_scalar

        @functools.wraps(fn)
        def call(*args, **kwargs):
            return fn(*[conv(a) for a in args], **kwargs)
        return call

    def _numpy_scalar(self, x):
        """0-d NumPy arrays / NumPy scalars made by rules (e.g. ``np.ones(())``) as
        Python scalars; larger NumPy arrays are refused (mixing array types)."""
        if isinstance(x, (np.ndarray, np.generic)):
            if np.ndim(x) == 0:
                return x.item()
            raise MixedArrayTypesError("numpy.ndarray", self.array_type,
                                       f"e.g. {self.ns.__name__}.asarray(x)")
        return x

    # kernels ------------------------------------------------------------------------
    def unary(self, name, x):
        if name == "reciprocal":
            return 1 / x
        return self._std_function(_UNARY_STD, cpu._UNARY, name, "unary")(x)

    def binary(self, name, x, y):
        x, y = self._numpy_scalar(x), self._numpy_scalar(y)
        op = _BINARY_OPS.get(name)
        if op is not None:
            if _is_py_scalar(x) and _is_py_scalar(y):
                return self.ns.asarray(op(x, y))
            return op(x, y)
        return self._std_function(_BINARY_STD, cpu._BINARY, name, "binary")(
            self._scalar_like(x, y), self._scalar_like(y, x))

    def _std_function(self, std_names, numpy_table, name, family):
        """The namespace's function for the operation ``name``; an operation the
        standard lacks (``fmax``, ``i0`` ...) is an UnsupportedOperation naming it, an
        unknown name a ValueError."""
        std = std_names.get(name)
        if std is None:
            fn = cpu._lookup(numpy_table, name, family)
            self.unsupported(f"numpy.{fn.__name__}", "the array API standard has no such function")
        return getattr(self.ns, std)

    def unary_vjp(self, name, g, x, ans=None):
        d = cpu._lookup(_VJP_STD, name, "unary_vjp")
        g = self._numpy_scalar(g)
        if ans is None and name in cpu._VJP_USES_ANS:
            ans = self.unary(name, x)
        ns = self.ns
        if ns.isdtype(x.dtype, "complex floating"):
            gc = g.conjugate() if _is_py_scalar(g) else ns.conj(g)
            return ns.conj(d(ns, gc, x, ans))
        return d(ns, g, x, ans)

    def sincos(self, x):
        return self.ns.sin(x), self.ns.cos(x)

    def scatter_add(self, shape, dtype, index, updates):
        """``z = zeros(shape, dtype); z[index] += updates``: basic indices assign into
        zeros; one integer array among full slices (the transpose of
        :meth:`getitem`) sums the updates of equal indices with a one-hot mask
        (``where`` and ``sum``: O(len(index) * shape[k]) memory, exact sums of the
        selected updates, non-finite updates stay where they belong)."""
        ns = self.ns
        updates = self._scalar_like(self._numpy_scalar(updates), None) \
            if not hasattr(updates, "shape") or isinstance(updates, np.ndarray) else updates
        dt = self.dtype(dtype)
        if not any(isinstance(i, np.ndarray) for i in
                   (index if type(index) is tuple else (index,))):
            z = ns.zeros(shape, dtype=dt)
            axes, idx = self._positive_steps(shape, self._basic(index))
            if any(i is None for i in idx):  # setitem takes no new axes: drop them
                stand_in = np.broadcast_to(np.zeros((), np.int8), shape)
                region = stand_in[idx].shape
                idx = tuple(i for i in idx if i is not None)
                updates = ns.reshape(ns.broadcast_to(updates, region), stand_in[idx].shape)
            z[idx] = updates
            return ns.flip(z, axis=axes) if axes else z
        zeros = np.broadcast_to(np.zeros((), np.int8), shape)
        found = self._array_index(zeros, index)
        if found is None:
            self.unsupported(f"scatter-add with the index {index!r}",
                             "the standard indexes with one integer array among full "
                             "slices at most")
        k, arr = found
        n = shape[k]
        m = arr.size
        region = tuple(shape[:k]) + arr.shape + tuple(shape[k + 1:])
        u = ns.broadcast_to(ns.astype(updates, dt) if updates.dtype != dt else updates,
                            region)
        u = ns.reshape(u, tuple(shape[:k]) + (m,) + tuple(shape[k + 1:]))
        # (..., m, ...) -> (rest..., m, 1) against the (m, n) one-hot mask
        rest = tuple(j for j in range(len(shape)) if j != k)
        u = ns.permute_dims(u, rest + (k,))[..., None]
        onehot = ns.asarray((arr.reshape(-1)[:, None] == np.arange(n)[None, :]).tolist(),
                            dtype=ns.bool) if m else ns.zeros((0, n), dtype=ns.bool)
        z = ns.sum(ns.where(onehot, u, ns.zeros((), dtype=dt)), axis=-2)  # (rest..., n)
        back = list(range(len(shape) - 1))
        back.insert(k, len(shape) - 1)
        return ns.permute_dims(z, tuple(back))

    def reduce_sum(self, x, axis, keepdims):
        return self.ns.sum(x, axis=axis, keepdims=keepdims)

    def reduce_max(self, x, axis, keepdims):
        return self.ns.max(x, axis=axis, keepdims=keepdims)

    def reduce_min(self, x, axis, keepdims):
        return self.ns.min(x, axis=axis, keepdims=keepdims)

    def matmul(self, a, b):
        return self.ns.matmul(a, b)

    def tensordot(self, a, b, axes):
        return self.ns.tensordot(a, b, axes=axes)

    def einsum(self, subscripts, *operands):
        self.unsupported("einsum")

    def dot_general(self, lhs, rhs, dimension_numbers):
        """``dot_general`` with the standard's functions: both operands permuted to
        (batch, free, contracted) / (batch, contracted, free), flattened to matrices
        and multiplied with ``matmul``; the result is (batch, lhs free, rhs free)."""
        (lc, rc), (lb, rb) = dimension_numbers
        ns = self.ns
        lhs, rhs = self._numpy_scalar(lhs), self._numpy_scalar(rhs)
        lf = [i for i in range(lhs.ndim) if i not in lc and i not in lb]
        rf = [i for i in range(rhs.ndim) if i not in rc and i not in rb]
        bshape = tuple(lhs.shape[i] for i in lb)
        lfs = tuple(lhs.shape[i] for i in lf)
        rfs = tuple(rhs.shape[i] for i in rf)
        k = 1
        for i in lc:
            k *= lhs.shape[i]
        m = 1
        for d in lfs:
            m *= d
        n = 1
        for d in rfs:
            n *= d
        a = ns.reshape(ns.permute_dims(lhs, tuple(lb) + tuple(lf) + tuple(lc)),
                       bshape + (m, k))
        b = ns.reshape(ns.permute_dims(rhs, tuple(rb) + tuple(rc) + tuple(rf)),
                       bshape + (k, n))
        return ns.reshape(ns.matmul(a, b), bshape + lfs + rfs)

    def where(self, c, x, y):
        x, y = self._numpy_scalar(x), self._numpy_scalar(y)
        return self.ns.where(c, self._scalar_like(x, y), self._scalar_like(y, x))

    def special_module(self):
        self.unsupported("scipy.special functions",
                         "the array API standard has no special functions")

    # NumPy-named adapters (signatures as NumPy's, for the calls primitives make) -----
    def _adapt_zeros(self, shape, dtype=float):
        return self.ns.zeros(shape, dtype=self.dtype(dtype))

    def _adapt_ones(self, shape, dtype=float):
        return self.ns.ones(shape, dtype=self.dtype(dtype))

    def _adapt_eye(self, n, m=None, k=0, dtype=float):
        return self.ns.eye(n, m, k=k, dtype=self.dtype(dtype))

    def _adapt_full(self, shape, fill_value, dtype=None):
        return self.ns.full(shape, fill_value, dtype=self.dtype(dtype))

    def _adapt_asarray(self, x, dtype=None):
        """``xp.asarray``: called by primitives on their own NumPy constants (masks,
        identities), which move into the namespace; user arrays never get here."""
        if isinstance(x, (np.ndarray, np.generic)):
            x = self.ns.asarray(x.tolist() if x.ndim else x.item(),
                                dtype=self.dtype(x.dtype if dtype is None else dtype))
            return x
        if dtype is not None and hasattr(x, "dtype"):
            return self.ns.astype(x, self.dtype(dtype))
        return self.ns.asarray(x, dtype=self.dtype(dtype))

    def _adapt_ascontiguousarray(self, x):
        return x

    def _adapt_reshape(self, x, shape):
        return self.ns.reshape(x, tuple(shape))

    def _adapt_transpose(self, x, axes=None):
        if axes is None:
            axes = tuple(range(x.ndim))[::-1]
        return self.ns.permute_dims(x, tuple(axes))

    def _adapt_squeeze(self, x, axis):
        return self.ns.squeeze(x, axis=axis)

    def _adapt_swapaxes(self, x, a, b):
        perm = list(range(x.ndim))
        perm[a], perm[b] = perm[b], perm[a]
        return self.ns.permute_dims(x, tuple(perm))

    def _adapt_concatenate(self, xs, axis=0):
        return self.ns.concat(tuple(xs), axis=axis)

    def _adapt_broadcast_to(self, x, shape):
        return self.ns.broadcast_to(self._scalar_like(self._numpy_scalar(x), None)
                                    if not hasattr(x, "shape") or isinstance(x, np.ndarray)
                                    else x, tuple(shape))

    def _adapt_prod(self, x, axis=None, dtype=None):
        return self.ns.prod(x, axis=axis, dtype=self.dtype(dtype))

    def _adapt_cumsum(self, x, axis=None, dtype=None):
        return self.ns.cumulative_sum(x, axis=axis, dtype=self.dtype(dtype))

    def _adapt_cumprod(self, x, axis=None, dtype=None):
        fn = getattr(self.ns, "cumulative_prod", None)
        if fn is None:
            self.unsupported("cumprod")
        return fn(x, axis=axis, dtype=self.dtype(dtype))

    def _adapt_sort(self, x, axis=-1, kind=None):
        return self.ns.sort(x, axis=axis, stable=True)

    def _adapt_argsort(self, x, axis=-1, kind=None):
        if self.ns.isdtype(x.dtype, "complex floating"):
            self.unsupported("argsort of complex numbers",
                             "the standard sorts real numbers only; sort by real and "
                             "imaginary parts explicitly")
        return self.ns.astype(self.ns.argsort(x, axis=axis, stable=True), self.ns.int64)

    def _logical(self, name, *xs):
        ns = self.ns
        out = []
        for x in xs:
            x = self._numpy_scalar(x)
            if _is_py_scalar(x):
                x = bool(x)
            elif not ns.isdtype(x.dtype, "bool"):
                x = x != 0  # NumPy's truth of numbers
            out.append(x)
        if all(type(x) is bool for x in out):
            return ns.asarray(getattr(operator, name.split("_")[1] + "_")(*out)
                              if name != "logical_not" else not out[0])
        return getattr(ns, name)(*[ns.asarray(x) if type(x) is bool else x for x in out])

    def _adapt_logical_and(self, x, y):
        return self._logical("logical_and", x, y)

    def _adapt_logical_or(self, x, y):
        return self._logical("logical_or", x, y)

    def _adapt_logical_xor(self, x, y):
        return self._logical("logical_xor", x, y)

    def _adapt_logical_not(self, x):
        return self._logical("logical_not", x)

    def _array_index(self, x, index):
        """``(k, arr)`` when ``index`` is one NumPy integer array at axis ``k`` among
        full slices (``x[:, arr]``), with negative entries wrapped; else None."""
        idx = index if type(index) is tuple else (index,)
        arrays = [k for k, i in enumerate(idx) if isinstance(i, np.ndarray)]
        if len(arrays) != 1 or any(i is None for i in idx):
            return None
        k = arrays[0]
        if Ellipsis in idx[:k] or not all(
                (isinstance(i, slice) and i == slice(None)) or i is Ellipsis
                for j, i in enumerate(idx) if j != k):
            return None
        arr = idx[k]
        if arr.dtype.kind not in "iu":
            return None
        return k, np.where(arr < 0, arr + x.shape[k], arr)

    def _basic(self, index):
        idx = index if type(index) is tuple else (index,)
        if not any(i is Ellipsis for i in idx):
            idx = idx + (Ellipsis,)
        return idx

    @staticmethod
    def _positive_steps(shape, idx):
        """``(axes, idx2)``: slices with a negative step rewritten as positive-step
        slices of the array flipped along ``axes`` (some libraries, e.g. PyTorch, take
        no negative steps): ``x[idx] == flip(x, axes)[idx2]``."""
        ndim = len(shape)
        used = sum(1 for i in idx if i is not None and i is not Ellipsis)
        axes, out, ax = [], [], 0
        for i in idx:
            if i is Ellipsis:
                ax += ndim - used
            elif isinstance(i, slice) and i.step is not None and i.step < 0:
                n = shape[ax]
                r = range(*i.indices(n))
                if len(r):
                    i = slice(n - 1 - r[0], n - r[-1], -i.step)
                else:
                    i = slice(0, 0)
                axes.append(ax)
                ax += 1
            elif i is not None:
                ax += 1
            out.append(i)
        return tuple(axes), tuple(out)

    def getitem(self, x, index):
        """``x[index]`` for NumPy's index expressions the standard can express: basic
        indices (a trailing ``...`` added) and one integer array among full slices
        (``take``, the array flattened and the result reshaped)."""
        ns = self.ns
        if not any(isinstance(i, np.ndarray) for i in
                   (index if type(index) is tuple else (index,))):
            axes, idx = self._positive_steps(x.shape, self._basic(index))
            return (ns.flip(x, axis=axes) if axes else x)[idx]
        found = self._array_index(x, index)
        if found is None:
            self.unsupported(f"indexing with {index!r}",
                             "the standard indexes with one integer array among full "
                             "slices at most")
        k, arr = found
        flat = ns.take(x, ns.asarray(arr.reshape(-1).tolist(), dtype=ns.int64), axis=k)
        return ns.reshape(flat, tuple(x.shape[:k]) + arr.shape + tuple(x.shape[k + 1:]))

    def _adapt_tril(self, x, k=0):
        return self.ns.tril(x, k=k)

    def _adapt_triu(self, x, k=0):
        return self.ns.triu(x, k=k)

    @property
    def _adapt_linalg(self):
        return _ArrayAPILinalg(self)

    def _adapt_flip(self, x, axis=None):
        return self.ns.flip(x, axis=axis)

    def _adapt_real(self, x):
        return self.ns.real(x) if self.ns.isdtype(x.dtype, "complex floating") else x

    def _adapt_imag(self, x):
        if self.ns.isdtype(x.dtype, "complex floating"):
            return self.ns.imag(x)
        return self.ns.zeros_like(x)

    def _adapt_diagonal(self, x, offset=0, axis1=-2, axis2=-1):
        if (axis1 % x.ndim, axis2 % x.ndim) != (x.ndim - 2, x.ndim - 1):
            self.unsupported("diagonal over axes other than the last two")
        return self.ns.linalg.diagonal(x, offset=offset)
