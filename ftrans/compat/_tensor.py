"""``Tensor``: an array (NumPy, later CuPy) with PyTorch's autograd attributes.

A Tensor holds its array (``_data``), its ``grad_fn`` and output number, the leaf flag
``requires_grad``, ``.grad``, a *version counter* (a one-element list shared with
every view of the same storage and with ``detach()``-ed aliases) and, only when needed,
an ``_Extra`` record (leaf hooks, ``retain_grad``, view base and view chain, cached
``AccumulateGrad``, inference flag).  Operators and math methods are attached by
:mod:`ftrans.compat._ops`.

``is_leaf`` is PyTorch's definition: a tensor with no ``grad_fn`` (every tensor that
does not require grad, and every tensor that requires grad and was created by the
user rather than by a recorded operation).
"""
from __future__ import annotations

import warnings
import weakref

import numpy as np

from . import _dtype as D
from . import cuda
from ..core.trace import PrimalTracer, Tracer
from .. import primitives as _P
from . import _tracer_values as _TV
from .autograd.grad_mode import _tls
from .autograd._node import AccumulateGrad, Meta, NO_EDGE, RemovableHandle

__all__ = ["Tensor", "Size", "device"]

_ndarray = np.ndarray
_new = object.__new__

# Set by the modules above this one when they are imported (they import it; an import of
# them here would close a circle): autograd.graph's ``new_view_node`` (the ``grad_fn`` of a
# view regenerated after an in-place change of its base) and the autograd.forward_ad module
# (tangents of views, ``detach_``, ``repr``).
_new_view_node = None
_fwad = None


class Size(tuple):
    """Shape of a tensor: a tuple that prints as ``torch.Size([2, 3])``."""

    __slots__ = ()

    def __repr__(self):
        return f"torch.Size([{', '.join(map(str, self))}])"

    __str__ = __repr__

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return Size(r) if isinstance(i, slice) else r


class device:
    """A device (``device('cpu')``); only the CPU is supported so far."""

    __slots__ = ("type", "index")

    def __init__(self, type="cpu", index=None):  # noqa: A002
        if isinstance(type, device):
            type, index = type.type, type.index
        if ":" in type:
            type, idx = type.split(":", 1)
            index = int(idx)
        if type not in ("cpu", "cuda"):
            raise RuntimeError(f"Expected one of cpu, cuda device type at start of device "
                               f"string: {type}")
        self.type = type
        self.index = index

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other):
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self):
        return hash((self.type, self.index))


_CPU = device("cpu")


_default_device = [None]   # set_default_device (None: the CPU)


def check_device(dev):
    """Validate a device argument: the CPU, or a GPU when CuPy sees one (PyTorch's
    ``AssertionError("Torch not compiled with CUDA enabled")`` otherwise)."""
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(str(dev))
    if d.type == "cuda":
        cuda._lazy_init()


def _device_of_array(a):
    if type(a) is np.ndarray or not hasattr(a, "device") or not hasattr(a.device, "id"):
        return _CPU
    return device("cuda", int(a.device.id))


class _Extra:
    """Rarely needed per-tensor state, allocated on first use."""

    __slots__ = ("hooks", "retains", "base", "chain", "view_ver", "acc", "inference",
                 "nograd_view", "name", "post_acc", "fw")

    def __init__(self):
        self.hooks = None        # leaf tensor hooks {id: fn}
        self.retains = False     # retain_grad() on a non-leaf
        self.base = None         # view: the base tensor (never itself a view)
        self.chain = None        # view: ((prim, params, Meta, extra_args), ...) base -> view
        self.view_ver = 0        # view: version when its grad_fn was last valid
        self.acc = None          # weakref to the AccumulateGrad node of a leaf
        self.inference = False   # created in inference mode
        self.nograd_view = False  # view created in no_grad of a base requiring grad
        self.name = None
        self.post_acc = None     # post-accumulate-grad hooks {id: fn(tensor)}
        self.fw = None           # forward AD: (level generation, tangent); autograd.forward_ad


def _extra(t):
    x = t._x
    if x is None:
        x = t._x = _Extra()
    return x


class Tensor:
    """An n-dimensional array with autograd (PyTorch's ``torch.Tensor``).

    ``Tensor(data)`` builds a tensor of the default float dtype from nested sequences
    (as ``torch.Tensor`` does); prefer :func:`ftrans.compat.tensor`.
    """

    __slots__ = ("_data", "_grad_fn", "_onr", "_rg", "_grad", "_vc", "_x", "__weakref__")
    __array_priority__ = 1000

    def __init__(self, *args):
        if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
            data = np.array(_plain(args[0]), dtype=D.get_default_dtype().np)
        else:
            if len(args) == 1 and isinstance(args[0], (tuple, list)):
                args = tuple(args[0])
            data = np.zeros(tuple(int(a) for a in args), D.get_default_dtype().np)
        self._data = data
        self._grad_fn = None
        self._onr = 0
        self._rg = False
        self._grad = None
        self._vc = [0]
        self._x = None
        if _tls.inference:
            _extra(self).inference = True

    # ------------------------------------------------------------------ attributes
    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim=None):
        """The shape (a ``Size``), or the length of dimension ``dim``."""
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        return self._data.ndim

    def numel(self) -> int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self):
        return D.from_np(self._data.dtype)

    @property
    def device(self):
        return _device_of_array(self._data)

    @property
    def is_cuda(self):
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return self._data.dtype.kind == "c"

    def element_size(self) -> int:
        return self._data.dtype.itemsize

    def type(self, dtype=None):
        if dtype is None:
            return "torch." + self.dtype._tname
        return self.to(dtype)

    def stride(self, dim=None):
        st = tuple(s // self._data.dtype.itemsize for s in self._data.strides)
        return st if dim is None else st[_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format=None) -> bool:
        return bool(self._data.flags.c_contiguous)

    def data_ptr(self) -> int:
        return int(self._data.__array_interface__["data"][0])

    def is_inference(self) -> bool:
        x = self._x
        return x is not None and x.inference

    @property
    def _version(self) -> int:
        x = self._x
        if x is not None and x.inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    @property
    def _base(self):
        x = self._x
        return None if x is None else x.base

    def _is_view(self) -> bool:
        x = self._x
        return x is not None and x.base is not None

    @property
    def name(self):
        x = self._x
        return None if x is None else x.name

    # ------------------------------------------------------------------ autograd state
    @property
    def grad_fn(self):
        """The node that created this tensor (None for leaves)."""
        return _grad_fn_of(self)

    @property
    def requires_grad(self) -> bool:
        return self._rg or _grad_fn_of(self) is not None

    @requires_grad.setter
    def requires_grad(self, flag):
        self.requires_grad_(bool(flag))

    def requires_grad_(self, requires_grad: bool = True):
        """Set ``requires_grad`` of a leaf in place; returns ``self``."""
        if _grad_fn_of(self) is not None:
            if requires_grad:
                return self
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach().")
        if requires_grad:
            if self._data.dtype.kind not in "fc":
                raise RuntimeError("only Tensors of floating point and complex dtype can "
                                   "require gradients")
            x = self._x
            if x is not None and x.inference and not _tls.inference:
                raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                                   "InferenceMode is not allowed.")
        self._rg = requires_grad
        return self

    @property
    def output_nr(self) -> int:
        """Which output of ``grad_fn`` this tensor is (0 for leaves)."""
        _grad_fn_of(self)
        return self._onr

    @property
    def is_leaf(self) -> bool:
        return _grad_fn_of(self) is None

    @property
    def grad(self):
        """Gradient accumulated by backward (leaves and ``retain_grad()`` tensors)."""
        if self._grad is None and _grad_fn_of(self) is not None and not self.retains_grad:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor. If you access the non-leaf Tensor by "
                "mistake, make sure you access the leaf Tensor instead. See "
                "github.com/pytorch/pytorch/pull/30531 for more information.",
                UserWarning, stacklevel=2)
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad "
                                f"of type {type(value).__name__}")
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(value._data.shape)}' to a "
                    f"tensor of size '{list(self._data.shape)}'. Please ensure that the "
                    "gradient and the tensor are the same size")
            if value._data.dtype != self._data.dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_ctype(value._data.dtype)}' "
                    f"to a tensor with dtype '{_ctype(self._data.dtype)}'. Please ensure that "
                    "the gradient and the tensor have the same dtype")
        self._grad = value

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        x = self._x
        return x is not None and x.retains and _grad_fn_of(self) is not None

    def retain_grad(self):
        """Populate ``.grad`` of this non-leaf tensor during backward (no-op on leaves)."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        gf = _grad_fn_of(self)
        if gf is None:
            return
        x = _extra(self)
        if x.retains:
            return
        x.retains = True
        _set_retains(gf, self._onr, self)

    def register_hook(self, hook):
        """Register ``hook(grad) -> Tensor or None`` called with the gradient of this
        tensor during backward; a returned tensor replaces the gradient.  Returns a handle
        with ``remove()``."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        gf = _grad_fn_of(self)
        if gf is not None:
            return gf._register_tensor_hook(self._onr, hook)
        x = _extra(self)
        if x.hooks is None:
            x.hooks = {}
        return RemovableHandle(x.hooks, hook)

    def register_post_accumulate_grad_hook(self, hook):
        """Register ``hook(tensor)`` called after ``.grad`` of this leaf was accumulated."""
        if _grad_fn_of(self) is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require "
                               "gradient")
        x = _extra(self)
        if x.post_acc is None:
            x.post_acc = {}
        return RemovableHandle(x.post_acc, hook)

    def detach(self):
        """A tensor sharing this one's storage and version counter, detached from the
        graph (never requires grad).  Under a ``compat.func`` transform (a traced value)
        it also stops the transform's derivative, as ``torch.func``'s does."""
        d = self._data
        if isinstance(d, Tracer):   # the primal below the derivative layers (vmap's stays)
            while isinstance(d, PrimalTracer):
                d = d.primal
            if isinstance(d, Tracer):
                d = _P.stop_gradient(d)
        t = _make(d)
        t._vc = self._vc
        x = self._x
        if x is not None and x.inference:
            _extra(t).inference = True
        return t

    def detach_(self):
        """Detach this tensor from the graph in place, making it a leaf (not for views)."""
        x = self._x
        if x is not None and x.base is not None and self.requires_grad:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in torch/optim/optimizer.py as the solution.")
        self._grad_fn = None
        self._onr = 0
        self._rg = False
        if x is not None:
            x.retains = False
        if _fwad._current_level >= 0:   # forward AD: the tangent is dropped too
            _fwad._store(self, _fwad._NO_TANGENT)
        return self

    @property
    def data(self):
        """A tensor sharing the storage but neither the history nor the version counter."""
        t = _make(self._data)
        return t

    @data.setter
    def data(self, value):
        if not isinstance(value, Tensor):
            raise TypeError("Tensor.data must be set to a Tensor")
        self._data = value._data

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulate the gradient of this tensor into the leaves' ``.grad``; see
        :func:`ftrans.compat.autograd.backward`."""
        from .autograd import backward  # deferred: autograd's engine entry, above Tensor
        if inputs is not None and isinstance(inputs, Tensor):
            inputs = (inputs,)
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------------ conversions
    def numpy(self, *, force=False):
        """The underlying NumPy array (shares memory)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._host("numpy")

    def item(self):
        """The single value as a Python number."""
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._host("item").reshape(()).item()

    def tolist(self):
        return self._host("tolist").tolist()

    def _host(self, what):
        """The concrete array (a traced value's primal; torch.func's errors where there
        is none, see :mod:`._tracer_values`)."""
        d = self._data
        return _TV.concrete(d, what) if isinstance(d, Tracer) else d

    def __array__(self, dtype=None, copy=None):
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        d = self._host("numpy")
        return d if dtype is None else d.astype(dtype)

    def __float__(self):
        return float(_real_scalar(self._scalar("float"), "double"))

    def __int__(self):
        return int(_real_scalar(self._scalar("int"), "int64_t"))

    def __complex__(self):
        return complex(self._scalar("complex"))

    def __index__(self):
        if self._data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self._scalar("index"))

    def __bool__(self):
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self._host("bool").reshape(()))

    def _scalar(self, what):
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._host("item").reshape(()).item()

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, proto):
        return (_rebuild, (self._data.copy(), self._rg))

    def __deepcopy__(self, memo):
        if not self.is_leaf:
            raise RuntimeError("Only Tensors created explicitly by the user (graph leaves) "
                               "support the deepcopy protocol at the moment.  If you were "
                               "attempting to deepcopy a module, this may be because of a "
                               "torch.nn.utils.weight_norm usage, see "
                               "https://github.com/pytorch/pytorch/pull/103001")
        t = _make(self._data.copy())
        t._rg = self._rg
        if self._grad is not None:
            t._grad = _make(self._grad._data.copy())
        memo[id(self)] = t
        return t

    def __repr__(self):
        return _format(self)

    __str__ = __repr__

    def __format__(self, spec):
        if self._data.ndim == 0 and spec:
            return format(self._data.item(), spec)
        return repr(self)


def _real_scalar(v, ctype):
    """A complex value with zero imaginary part as a real one (PyTorch converts those;
    any other complex value is an error)."""
    if isinstance(v, complex):
        if v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        return v.real
    return v


def _rebuild(data, rg):
    t = _make(data)
    t._rg = rg
    return t


def _ctype(npdt):
    return {"float32": "float", "float64": "double", "float16": "half", "int64": "long",
            "int32": "int", "complex64": "complex<float>",
            "complex128": "complex<double>"}.get(str(npdt), str(npdt))


def _plain(obj):
    """Nested sequences with tensors replaced by their values."""
    if isinstance(obj, Tensor):
        return obj._data
    if isinstance(obj, (list, tuple)):
        return [_plain(o) for o in obj]
    return obj


def _dim(d, ndim):
    d = int(d)
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n if ndim else 0


# ---------------------------------------------------------------------- construction
def _make(data, grad_fn=None):
    """A new tensor around ``data`` (normalized to an array) with ``grad_fn``."""
    if type(data) is not _ndarray:
        data = _as_array(data)
    t = _new(Tensor)
    t._data = data
    t._grad_fn = grad_fn
    t._onr = 0
    t._rg = False
    t._grad = None
    t._vc = [0]
    t._x = None
    return t


def _as_array(data):
    if isinstance(data, Tracer):   # a value traced by an ftrans transform (compat.func)
        return data
    if isinstance(data, np.generic) or not (hasattr(data, "__array_namespace__")
                                            or hasattr(data, "__cuda_array_interface__")):
        return np.asarray(data)
    return data  # a CuPy (or other array-API) array


def _concrete(data):
    """The concrete array behind ``data`` for *value checks* (index bounds...): ``data``
    itself, a forward/reverse tracer's primal or a batch tracer's whole batch (every
    example's values: an elementwise check over it checks each example); None for a
    staged (jit) value, which has none."""
    while isinstance(data, Tracer):
        if hasattr(data, "primal"):
            data = data.primal
        elif hasattr(data, "val") and hasattr(data, "bdim"):
            data = data.val
        else:
            return None
    return data


def _make_plain(data):
    """A tensor created outside recording (marks inference tensors)."""
    t = _make(data)
    if _tls.inference:
        _extra(t).inference = True
    return t


# ----------------------------------------------------------------------- graph edges
def _acc(t):
    """The AccumulateGrad node of leaf ``t`` (cached weakly on the tensor)."""
    x = _extra(t)
    r = x.acc
    node = r() if r is not None else None
    if node is None:
        node = AccumulateGrad(t)
        x.acc = weakref.ref(node)
    return node


def _edge(t):
    """The gradient edge of ``t``: (grad_fn, output_nr), (AccumulateGrad, 0) or
    (None, 0) when ``t`` does not require grad."""
    if t._x is None:
        gf = t._grad_fn
        if gf is not None:
            return (gf, t._onr)
        if t._rg:
            return (_acc(t), 0)
        return NO_EDGE
    gf = _grad_fn_of(t)
    if gf is not None:
        return (gf, t._onr)
    if t._rg:
        return (_acc(t), 0)
    return NO_EDGE


def _grad_fn_of(t):
    """``t._grad_fn``, regenerated first for a view whose base changed in place."""
    x = t._x
    if x is None or x.base is None:
        return t._grad_fn
    ver = t._vc[0]
    if x.view_ver != ver and not x.nograd_view:
        base = x.base
        be = _edge(base)
        if be[0] is None:
            t._grad_fn = None
        else:
            t._grad_fn = _new_view_node(x.chain, be)
        t._onr = 0
        x.view_ver = ver
        if x.retains and t._grad_fn is not None:
            _set_retains(t._grad_fn, 0, t)
    return t._grad_fn


def _set_retains(node, nr, t):
    hk = node._hooks()
    if hk.rgh is None:
        hk.rgh = {}
    hk.rgh[nr] = t


def _requires_grad(t):
    return t._rg or _grad_fn_of(t) is not None


def _mark_view(out, src, prim, params, extra=()):
    """Make ``out`` (computed from ``src`` by ``prim``) a view of ``src``'s base."""
    sx = src._x
    meta = Meta(src._data.shape, src._data.dtype)
    if sx is not None and sx.base is not None:
        base = sx.base
        chain = sx.chain + ((prim, params, meta, tuple(extra)),)
    else:
        base = src
        chain = ((prim, params, meta, tuple(extra)),)
    x = _extra(out)
    x.base = base
    x.chain = chain
    out._vc = base._vc
    x.view_ver = base._vc[0]
    if sx is not None and sx.inference:
        x.inference = True
    if not _tls.grad and _requires_grad(base):
        x.nograd_view = True
    if x.fw is not None:   # forward AD: the tangent of a view is the view of the tangent
        _fwad._view_tangent(out, src, prim, params, extra)
    return out


# ------------------------------------------------------------------------- printing
def _float_formatter(a):
    """PyTorch's float format: ``1.`` for integral values, 4 decimals otherwise, scientific
    notation for wide ranges; every element padded to the same width."""
    if a.dtype.kind != "f":
        return None
    fin = a[np.isfinite(a)].astype(np.float64)
    v = np.abs(fin)
    nz = v[v != 0]
    if v.size == 0 or np.all(v == np.round(v)):
        if nz.size and nz.max() >= 1e8:
            fmt = "{:.4e}".format
        else:
            def fmt(x):
                return f"{x:.0f}." if np.isfinite(x) else f"{x}"
    elif nz.size and (nz.max() / nz.min() > 1000.0 or nz.max() >= 1e8 or nz.min() < 1e-4):
        fmt = "{:.4e}".format
    else:
        fmt = "{:.4f}".format
    width = 0
    if fin.size:
        width = max(len(fmt(fin.max())), len(fmt(fin.min())))
    if fin.size != a.size:
        width = max(width, 3 if not np.any(np.isneginf(a)) else 4)

    def pad(x):
        return fmt(x).rjust(width)
    return {"float_kind": pad}


def _format(t):
    a = t._data
    kw = []
    if a.size == 0:
        body = "[]"
        if a.ndim != 1:
            kw.append(f"size=({', '.join(map(str, a.shape))}{',' if a.ndim == 1 else ''})")
    else:
        with np.printoptions(threshold=1000, edgeitems=3, linewidth=80):
            body = np.array2string(a, separator=", ", prefix="tensor(",
                                   formatter=_float_formatter(a))
    dt = a.dtype
    default = D.get_default_dtype().np
    if dt.kind == "f" and dt != default:
        kw.append(f"dtype={D.from_np(dt)!r}")
    elif dt.kind == "c" and dt != D.default_complex():
        kw.append(f"dtype={D.from_np(dt)!r}")
    elif dt.kind in "iu" and dt != np.int64:
        kw.append(f"dtype={D.from_np(dt)!r}")
    gf = _grad_fn_of(t)
    if gf is not None:
        nm = gf.name()
        if nm.startswith("torch::autograd::"):
            nm = nm[17:]
        kw.append(f"grad_fn=<{nm}>")
    elif t._rg:
        kw.append("requires_grad=True")
    if t._x is not None and t._x.fw is not None:
        tan = _fwad._repr_tangent(t)
        if tan is not None:
            kw.append("tangent=" + _format(tan))
    return "tensor(" + body + "".join(", " + k for k in kw) + ")"
