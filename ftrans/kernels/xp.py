"""Array-namespace backends: the kernels of ``ftrans.kernels.cpu`` for arrays that are
neither NumPy nor CuPy.

Two kinds of backend object live here, both exposing the same names as the
``cpu``/``gpu`` modules (``unary``, ``binary``, ``unary_vjp``, ``sincos``,
``scatter_add``, ``reduce_sum``/``reduce_max``/``reduce_min``, ``matmul``,
``tensordot``, ``einsum``, ``where`` and the NumPy-named namespace ``xp``):

* :class:`DaskBackend` for ``dask.array.Array``.  Every kernel builds a lazy Dask
  graph; elementwise kernels run the CPU backend's NumPy/numba kernels on each chunk
  (``dask.array.core.elemwise``), reductions and contractions are Dask's own (tree
  reductions).  NumPy arrays and scalars combine with Dask arrays as Dask itself
  allows (a NumPy operand becomes a one-chunk constant of the graph).
* :class:`ArrayAPIBackend` for any other array with ``__array_namespace__`` (the
  Python array API standard), e.g. ``array_api_strict``.  Kernels call only the
  standard's functions on the array's own namespace.

``xp`` is a NumPy-named view of the namespace (``xp.concatenate`` is the standard's
``concat``, ``xp.cumsum`` its ``cumulative_sum`` ...): primitives written against
NumPy's names run unchanged.  A function the namespace lacks raises
:class:`UnsupportedOperation` (a ``NotImplementedError``) naming the function and the
array type; the primitive that asked for it adds its own name (``Primitive.bind``).

Nothing here converts a foreign array to NumPy, and nothing imports Dask or
``array_api_compat`` until an array of theirs is seen.
"""
from __future__ import annotations

import functools
import operator
import warnings

import numpy as np

from . import cpu, _generated

__all__ = ["UnsupportedOperation", "MixedArrayTypesError", "DaskBackend", "ArrayAPIBackend",
           "type_name"]


def type_name(t):
    """``module.qualname`` of a type, with the package's public module for the
    well-known array types (``dask.array.Array``, ``numpy.ndarray`` ...)."""
    mod = getattr(t, "__module__", "") or ""
    top = mod.split(".")[0]
    if t is np.ndarray:
        return "numpy.ndarray"
    if top == "dask" and t.__name__ == "Array":
        return "dask.array.Array"
    if top in ("array_api_strict", "cupy"):
        return f"{top}.{t.__name__}"
    return f"{mod}.{t.__qualname__}" if mod else t.__qualname__


class UnsupportedOperation(NotImplementedError):
    """An operation the array type's namespace does not provide.

    ``Primitive.bind`` re-raises it with the primitive's name (``with_primitive``).
    """

    primitive = None

    def __init__(self, what, array_type, hint=""):
        self.what, self.array_type, self.hint = what, array_type, hint
        super().__init__(self._message(None))

    def _message(self, prim):
        head = f"primitive {prim!r}: " if prim else ""
        return (f"{head}{self.what} is not available for {self.array_type} arrays"
                + (f"; {self.hint}" if self.hint else ""))

    def with_primitive(self, prim):
        if self.primitive is not None:  # named by the innermost primitive already
            return self
        e = UnsupportedOperation(self.what, self.array_type, self.hint)
        e.primitive = prim
        e.args = (self._message(prim),)
        return e


class MixedArrayTypesError(TypeError):
    """Two array types in one operation (e.g. NumPy and ``array_api_strict``)."""

    primitive = None

    def __init__(self, a, b, convert):
        self.a, self.b, self.convert = a, b, convert
        super().__init__(self._message(None))

    def _message(self, prim):
        where = f"primitive {prim!r}" if prim else "one operation"
        return (f"{where} got arrays of two types, {self.a} and {self.b}; ftrans never "
                f"converts between array libraries behind your back: convert one operand "
                f"explicitly ({self.convert})")

    def with_primitive(self, prim):
        if self.primitive is not None:  # named by the innermost primitive already
            return self
        e = MixedArrayTypesError(self.a, self.b, self.convert)
        e.primitive = prim
        e.args = (self._message(prim),)
        return e


def _is_py_scalar(x):
    return type(x) in (int, float, complex, bool)


# ---------------------------------------------------------------------------------
# NumPy-named view of a namespace
# ---------------------------------------------------------------------------------
class _NumpyNames:
    """``getattr(view, numpy_name)``: the namespace's function for NumPy's name.

    Lookup order: an adapter defined by the backend (``_adapt_<name>``), the
    namespace's attribute of that name, the standard's name for it
    (``_STANDARD_NAMES``); otherwise :class:`UnsupportedOperation`.
    """

    def __init__(self, backend):
        self._backend = backend
        self._cache = {}

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        fn = self._cache.get(name)
        if fn is None:
            fn = self._cache[name] = self._backend._resolve(name)
        return fn

    def __repr__(self):
        return f"<NumPy-named view of {self._backend.ns.__name__}>"


class _SubNames:
    """``xp.linalg`` / ``xp.fft``: the namespace's submodule, NumPy's function names;
    a missing function, or NumPy-only keywords the namespace's function refuses,
    raise :class:`UnsupportedOperation`."""

    def __init__(self, backend, sub):
        self._backend, self._sub = backend, sub
        self._mod = getattr(backend.ns, sub, None)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        what = f"numpy.{self._sub}.{name}"
        fn = getattr(self._mod, name, None) if self._mod is not None else None
        if fn is None:
            raise UnsupportedOperation(what, self._backend.array_type,
                                       self._backend._hint(what))

        def call(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except TypeError as e:
                if kwargs and "keyword" in str(e):
                    raise UnsupportedOperation(
                        f"{what} with the keyword(s) {sorted(kwargs)}",
                        self._backend.array_type, str(e)) from None
                raise
        return call


_STANDARD_NAMES = {  # NumPy name -> array API standard name
    "concatenate": "concat", "true_divide": "divide", "power": "pow",
    "arcsin": "asin", "arccos": "acos", "arctan": "atan", "arctan2": "atan2",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "absolute": "abs",
    "conjugate": "conj", "cumsum": "cumulative_sum", "cumprod": "cumulative_prod",
    "transpose": "permute_dims", "bitwise_not": "bitwise_invert",
}


class _BackendBase:
    """Shared by the Dask and array-API backends."""

    #: ``xp`` namespace-like view with NumPy's names (set in ``__init__``)
    xp = None
    ns = None
    array_type = "?"

    def _resolve(self, name):
        adapter = getattr(self, "_adapt_" + name, None)
        if adapter is None and name in ("linalg", "fft"):
            return _SubNames(self, name)
        if adapter is not None:
            return adapter
        fn = getattr(self.ns, name, None)
        if fn is None and name in _STANDARD_NAMES:
            fn = getattr(self.ns, _STANDARD_NAMES[name], None)
        if fn is None:
            raise UnsupportedOperation(f"numpy.{name}", self.array_type,
                                       self._hint(name))
        return self._wrap(fn)

    def _wrap(self, fn):
        return fn

    def _hint(self, name):
        return ("the array API standard has no such function; compute this step on "
                "NumPy arrays explicitly (numpy.asarray(x)) if that is what you want")

    def unsupported(self, what, hint=""):
        raise UnsupportedOperation(what, self.array_type, hint or self._hint(what))

    def on_numpy(self, name, fn, out_aval, *args):
        """Run ``fn``, a kernel written for NumPy arrays, on ``args`` of this library
        (``out_aval``: the result's shape and dtype).  Array-API arrays: not available
        (the standard has no stride tricks or in-place kernels to run it with)."""
        self.unsupported(f"the NumPy kernel of {name}",
                         "the array API standard cannot express it; convert the operands "
                         "to NumPy arrays explicitly (numpy.asarray(x)) if that is what "
                         "you want")

    def __repr__(self):
        return f"<ftrans backend for {self.array_type}>"


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
