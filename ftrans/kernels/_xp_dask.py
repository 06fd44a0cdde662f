"""The Dask backend of :mod:`ftrans.kernels.xp`: kernels that build lazy Dask graphs,
running the CPU backend's kernels chunk by chunk."""
from __future__ import annotations

import functools
import warnings

import numpy as np

from . import cpu
from ._xp_base import _BackendBase, _NumpyNames, _is_py_scalar

__all__ = ["DaskBackend"]


# ---------------------------------------------------------------------------------
# Dask
# ---------------------------------------------------------------------------------
def _sample(a):
    """A 0-d NumPy stand-in with ``a``'s dtype (Python scalars stay weak)."""
    if _is_py_scalar(a):
        return a
    return np.zeros((), getattr(a, "dtype", None) or np.asarray(a).dtype)


def _unary_chunk_k(name, k, block):
    """Result ``k`` of a unary kernel with several results, on one Dask block."""
    return _unary_chunk(name, block)[k]


def _unary_chunk(name, x):
    return cpu.unary(name, x)


def _binary_chunk(name, x, y):
    return cpu.binary(name, x, y)


def _vjp_chunk(name, g, x, ans):
    return cpu.unary_vjp(name, g, x, ans)


def _scatter_chunk(shape, dtype, index, u):
    return cpu.scatter_add(shape, dtype, index, u)


def _getitem_chunk(index, x):
    return x[index]


class DaskBackend(_BackendBase):
    """Kernels building lazy Dask graphs (see the module docstring).

    Elementwise kernels apply the CPU backend chunk by chunk, so the numba fast
    paths and NumPy's exact results carry over; the output dtype is the one NumPy
    gives for the operands' dtypes.
    """

    __name__ = "ftrans.kernels.xp.dask"
    array_type = "dask.array.Array"

    def __init__(self):
        import dask.array as da
        self.da = da
        self.ns = da
        self.xp = _NumpyNames(self)

    def on_numpy(self, name, fn, out_aval, *args):
        """Run the NumPy kernel ``fn`` lazily as ONE task on the whole operands (each
        Dask operand rechunked to a single chunk): the result is a one-chunk Dask array
        of ``out_aval``'s shape and dtype.  Used by primitives whose kernel has no
        chunk-wise form (convolution, window pooling); it stays lazy but is not
        parallel, and each operand must fit in one worker's memory."""
        import dask
        parts = [a.rechunk({i: -1 for i in range(a.ndim)}).to_delayed().ravel()[0]
                 if isinstance(a, self.da.Array) else a for a in args]
        return self.da.from_delayed(dask.delayed(fn, pure=True)(*parts), out_aval.shape,
                                    dtype=out_aval.dtype)

    def _hint(self, name):
        return ("dask.array has no lazy version of it; call .compute() on the input "
                "first if it fits in memory, or rewrite the step with ftrans.dask "
                "(per-chunk evaluation)")

    def _elemwise(self, fn, args, dtype):
        from dask.array.core import elemwise
        return elemwise(fn, *args, dtype=dtype)

    def unary(self, name, x):
        cpu._lookup(cpu._UNARY, name, "unary")
        if not isinstance(x, self.da.Array):
            return cpu.unary(name, x)
        with np.errstate(all="ignore"):
            sample = cpu.unary(name, _sample(x))
        if isinstance(sample, tuple):  # several results (frexp, modf): one graph each
            return tuple(x.map_blocks(functools.partial(_unary_chunk_k, name, k),
                                      dtype=np.asarray(s).dtype)
                         for k, s in enumerate(sample))
        return x.map_blocks(functools.partial(_unary_chunk, name),
                            dtype=np.asarray(sample).dtype)

    def binary(self, name, x, y):
        cpu._lookup(cpu._BINARY, name, "binary")
        with np.errstate(all="ignore"):
            dt = np.asarray(cpu.binary(name, _sample(x), _sample(y))).dtype
        return self._elemwise(functools.partial(_binary_chunk, name), (x, y), dt)

    def unary_vjp(self, name, g, x, ans=None):
        cpu._lookup(cpu._VJP, name, "unary_vjp")
        if ans is None and name in cpu._VJP_USES_ANS:
            ans = self.unary(name, x)
        if ans is None:
            ans = x  # unused by the formula; keeps one code path
        with np.errstate(all="ignore"):
            dt = np.asarray(cpu.unary_vjp(name, _sample(g), _sample(x),
                                          _sample(ans))).dtype
        return self._elemwise(functools.partial(_vjp_chunk, name), (g, x, ans), dt)

    def sincos(self, x):
        return self.unary("sin", x), self.unary("cos", x)

    def scatter_add(self, shape, dtype, index, updates):
        """``z = zeros(shape, dtype); z[index] += updates`` (repeats summed), lazily.

        A basic index (ints, slices, None, Ellipsis) assigns into lazy zeros, keeping
        Dask's chunks; any other index (integer arrays, which may repeat; masks) is one
        task running the CPU kernel on the whole of ``updates``, whose result is one
        chunk of ``shape`` (the gradient of ``x[int_array]`` w.r.t. ``x``)."""
        idx = index if type(index) is tuple else (index,)
        if all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice))
               for i in idx):
            z = self.da.zeros(shape, dtype=dtype)
            try:
                z[index] = updates
                return z
            except (NotImplementedError, ValueError, TypeError):
                pass
        u = updates if isinstance(updates, self.da.Array) else self.da.asarray(updates)
        u = u.rechunk(-1) if u.ndim else u
        return u.map_blocks(functools.partial(_scatter_chunk, tuple(shape), np.dtype(dtype),
                                              index),
                            chunks=tuple((d,) for d in shape), dtype=dtype,
                            drop_axis=tuple(range(u.ndim))[len(shape):] or None,
                            new_axis=None if u.ndim >= len(shape) else
                            tuple(range(u.ndim, len(shape))), meta=np.zeros((), dtype))

    def reduce_sum(self, x, axis, keepdims):
        return self.da.sum(x, axis=axis, keepdims=keepdims)

    def reduce_max(self, x, axis, keepdims):
        return self.da.max(x, axis=axis, keepdims=keepdims)

    def reduce_min(self, x, axis, keepdims):
        return self.da.min(x, axis=axis, keepdims=keepdims)

    def matmul(self, a, b):
        return self.da.matmul(a, b)

    def tensordot(self, a, b, axes):
        return self.da.tensordot(a, b, axes)

    def einsum(self, subscripts, *operands):
        return self.da.einsum(subscripts, *operands)

    def where(self, c, x, y):
        return self.da.where(c, x, y)

    def special_module(self):
        """``scipy.special`` applied chunk by chunk (``polygamma`` is no ufunc, so
        Dask's ``__array_ufunc__`` would not keep it lazy)."""
        return _DaskElementwise(self, "scipy.special")

    def getitem(self, x, index):
        """``x[index]``, lazily; integer-array indices are made non-negative first
        (Dask refuses some negative ones).  Index expressions Dask cannot index
        lazily (several integer arrays, n-d integer arrays) raise
        :class:`UnsupportedOperation`."""
        try:
            return x[index]
        except (NotImplementedError, TypeError, ValueError):
            pass
        idx = index if type(index) is tuple else (index,)
        fixed, dim = [], 0
        for i in idx:
            if isinstance(i, np.ndarray) and i.dtype.kind in "iu" and dim < x.ndim:
                i = np.where(i < 0, i + x.shape[dim], i)
            fixed.append(i)
            dim += 0 if i is None else (x.ndim - len([j for j in idx if j is not None]) + 1
                                        if i is Ellipsis else
                                        (i.ndim if getattr(i, "dtype", None) == bool else 1))
        try:
            return x[tuple(fixed)]
        except (NotImplementedError, TypeError, ValueError):
            pass
        # an index Dask cannot split by chunks (several or n-d integer arrays): one
        # task indexing the whole array
        out_shape = np.broadcast_to(np.zeros((), x.dtype), x.shape)[index].shape
        whole = x.rechunk(-1) if x.ndim else x
        return whole.map_blocks(functools.partial(_getitem_chunk, index),
                                chunks=tuple((d,) for d in out_shape), dtype=x.dtype,
                                drop_axis=tuple(range(x.ndim))[len(out_shape):] or None,
                                new_axis=None if x.ndim >= len(out_shape) else
                                tuple(range(x.ndim, len(out_shape))),
                                meta=np.zeros((), x.dtype))

    # NumPy names dask.array spells differently or lacks ----------------------------
    def _adapt_zeros(self, shape, dtype=float):
        return self.da.zeros(shape, dtype=dtype)

    def _adapt_ones(self, shape, dtype=float):
        return self.da.ones(shape, dtype=dtype)

    def _adapt_eye(self, n, m=None, k=0, dtype=float):
        return self.da.eye(n, M=m, k=k, dtype=dtype)

    def _adapt_reshape(self, x, shape):
        try:
            return x.reshape(shape)
        except (NotImplementedError, ValueError):
            # Dask reshapes lazily only when chunk boundaries line up: one chunk
            # along the axes that change (a lazy rechunk) always does
            return x.rechunk(-1).reshape(shape)

    def _adapt_tril(self, x, k=0):
        # (dask.array.tril warns ComplexWarning on complex input: its mask via where)
        n, m = x.shape[-2:]
        mask = self.da.tri(n, m, k, dtype=bool, chunks=x.chunks[-2:])
        return self.da.where(mask, x, np.zeros((), x.dtype))

    def _adapt_triu(self, x, k=0):
        n, m = x.shape[-2:]
        mask = ~self.da.tri(n, m, k - 1, dtype=bool, chunks=x.chunks[-2:])
        return self.da.where(mask, x, np.zeros((), x.dtype))

    def _adapt_argsort(self, x, axis=-1, kind=None):
        ax = axis % x.ndim
        return x.rechunk({ax: -1}).map_blocks(
            functools.partial(np.argsort, axis=ax, kind="stable"), dtype=np.intp)

    def _adapt_sort(self, x, axis=-1, kind=None):
        ax = axis % x.ndim
        return x.rechunk({ax: -1}).map_blocks(
            functools.partial(np.sort, axis=ax, kind="stable"), dtype=x.dtype)

    @property
    def _adapt_linalg(self):
        return _DaskLinalg(self)

    @property
    def _adapt_fft(self):
        return _DaskFFT(self)

    def _adapt_ascontiguousarray(self, x):
        return x

    def _adapt_asarray(self, x, dtype=None):
        if isinstance(x, self.da.Array):
            return x if dtype is None else x.astype(dtype)
        return np.asarray(x, dtype=dtype)  # a NumPy constant: Dask wraps it when used


def _svd_sig(full_matrices=True, compute_uv=True):
    if not compute_uv:
        return "(m,n)->(k)"
    return "(m,n)->(m,m),(k),(n,n)" if full_matrices else "(m,n)->(m,k),(k),(k,n)"


def _qr_sig(mode="reduced"):
    return "(m,n)->(m,m),(m,n)" if mode == "complete" else "(m,n)->(m,k),(k,n)"


# numpy.linalg function -> its gufunc signature (a function of the keywords where the
# output shapes depend on them).  Every function works on the last two axes.
_LINALG_SIGS = {
    "solve": "(m,m),(m,n)->(m,n)", "cholesky": "(m,m)->(m,m)", "inv": "(m,m)->(m,m)",
    "eigh": "(m,m)->(m),(m,m)", "eigvalsh": "(m,m)->(m)", "det": "(m,m)->()",
    "slogdet": "(m,m)->(),()", "pinv": "(m,n)->(n,m)", "svd": _svd_sig, "qr": _qr_sig,
    "eig": "(m,m)->(m),(m,m)",
}


class _DaskElementwise:
    """The functions of an elementwise module (``scipy.special``) on Dask arrays:
    ``dask.array.core.elemwise`` runs the function on each block (broadcasting as
    NumPy), the dtype is the function's on 0-d samples."""

    def __init__(self, backend, module_name):
        import importlib
        self._b = backend
        self._mod = importlib.import_module(module_name)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = getattr(self._mod, name)

        def call(*args):
            with np.errstate(all="ignore"):
                dt = np.asarray(fn(*[_sample(a) for a in args])).dtype
            return self._b._elemwise(fn, args, dt)
        return call


class _DaskLinalg:
    """``numpy.linalg`` over Dask arrays: each function runs NumPy's on every matrix
    of the batch, lazily (``dask.array.apply_gufunc``; the two matrix axes are
    rechunked to one chunk, the batch axes keep their chunks).  A single large
    matrix is therefore one task: Dask's own blocked algorithms (``dask.array.linalg``)
    are for tall-and-skinny problems and are not used."""

    def __init__(self, backend):
        self._b = backend

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        sig = _LINALG_SIGS.get(name)
        fn = getattr(np.linalg, name, None)
        if sig is None or fn is None:
            self._b.unsupported(f"numpy.linalg.{name}")

        def call(*args, **kwargs):
            from dask.array.gufunc import apply_gufunc
            s = sig(**kwargs) if callable(sig) else sig
            if name == "solve" and args[1].ndim == args[0].ndim - 1:
                s = "(m,m),(m)->(m)"
            samples = [np.eye(2, dtype=a.dtype) if getattr(a, "ndim", 0) >= 2 else
                       np.ones(2, getattr(a, "dtype", np.float64)) for a in args]
            outs = fn(*samples, **kwargs)
            multi = isinstance(outs, tuple)
            dts = [np.asarray(o).dtype for o in (outs if multi else (outs,))]
            if name == "eig":  # complex unless every eigenvalue is real: always complex
                dts = [np.result_type(d, np.complex64) for d in dts]
            sizes = {}
            if "k" in s:
                m, n = args[0].shape[-2:]
                sizes["k"] = min(m, n)
            with warnings.catch_warnings():
                # Dask casts its complex input "meta" to a real output dtype (eigh's
                # eigenvalues): a ComplexWarning about an empty array, not about data
                warnings.simplefilter("ignore", np.exceptions.ComplexWarning)
                return apply_gufunc(functools.partial(fn, **kwargs), s, *args,
                                    output_dtypes=tuple(dts) if multi else dts[0],
                                    output_sizes=sizes, allow_rechunk=True,
                                    vectorize=False)
        return call


class _DaskFFT:
    """``numpy.fft`` over Dask arrays: the transformed axes are rechunked to one chunk
    (lazily; Dask's FFT needs it), then ``dask.array.fft``."""

    def __init__(self, backend):
        self._b = backend

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = getattr(self._b.da.fft, name, None)
        if fn is None:
            self._b.unsupported(f"numpy.fft.{name}")

        def call(x, *args, axis=None, axes=None, **kwargs):
            ax = [axis] if axis is not None else (list(axes) if axes is not None else
                                                 [-1] if name[-1] != "n" else
                                                 list(range(x.ndim)))
            x = x.rechunk({a % x.ndim: -1 for a in ax})
            if axis is not None:
                kwargs["axis"] = axis
            if axes is not None:
                kwargs["axes"] = axes
            return fn(x, *args, **kwargs)
        return call
