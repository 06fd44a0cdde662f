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
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from . import _dtype as D
from ..core.trace import PrimalTracer, Tracer
from .. import primitives as _P
from . import _tracer_values as _TV
from ._tracer_values import _concrete  # noqa: F401  (compat.nn imports it here)
from ._device import Size, device, _device_of_array
from ._device import check_device, _default_device  # noqa: F401  (their names here)
from ._tensor_repr import _ctype, format_tensor
from ._tensor_extra import _Extra

if TYPE_CHECKING:   # the methods installed at import, for type checkers only
    from ._tensor_methods import _TensorMethods as _TensorBase  # generated: tools/stubgen.py
else:
    _TensorBase = object
from .autograd.grad_mode import _tls
from .autograd._node import AccumulateGrad, Meta, NO_EDGE, RemovableHandle

__all__ = ["Tensor", "Size", "device"]

_ndarray = np.ndarray
_new = object.__new__

# Set by the modules above this one when they are imported (they import it; an import of
# them here would close a circle): autograd.graph's ``new_view_node`` (the ``grad_fn`` of a
# view regenerated after an in-place change of its base) and the autograd.forward_ad module
# (tangents of views, ``detach_``, ``repr``).
_new_view_node: Any = None
_fwad: Any = None


def _extra(t: Tensor) -> _Extra:
    x = t._x
    if x is None:
        x = t._x = _Extra()
    return x


class Tensor(_TensorBase):
    """An n-dimensional array with autograd (PyTorch's ``torch.Tensor``).

    ``Tensor(data)`` builds a tensor of the default float dtype from nested sequences
    (as ``torch.Tensor`` does), ``Tensor(2, 3)`` a zero tensor of that shape; prefer
    :func:`ftrans.compat.tensor`.

    Parameters
    ----------
    *args : Any
        Nested sequences (or an array) of values, or the sizes of a zero tensor.
    """

    __slots__ = ("_data", "_grad_fn", "_onr", "_rg", "_grad", "_vc", "_x", "__weakref__")
    _data: Any                  # a NumPy array, a CuPy array, or a Tracer (compat.func)
    _grad_fn: Any               # the node that created it (autograd.graph), None for leaves
    _onr: int                   # which output of _grad_fn
    _rg: bool                   # requires_grad of a leaf
    _grad: Tensor | None
    _vc: list[int]              # the version counter, shared with views
    _x: _Extra | None
    __array_priority__ = 1000

    def __init__(self, *args: Any) -> None:
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
        """The shape (a ``Size``)."""
        return Size(self._data.shape)

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the length of dimension ``dim``.

        Parameters
        ----------
        dim : int, optional
            A dimension (negative: from the end).

        Returns
        -------
        Size or int
            The shape (a ``Size``) without ``dim``, the length of ``dim`` with it.
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_dim(dim, self._data.ndim)]

    def dim(self) -> int:
        """The number of dimensions (``ndimension``).

        Returns
        -------
        int
            ``len(self.shape)``.
        """
        return self._data.ndim

    ndimension = dim

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return self._data.ndim

    def numel(self) -> int:
        """The number of elements (``nelement``).

        Returns
        -------
        int
            The product of the sizes.
        """
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> D.dtype:
        """The dtype (``torch.float32`` ...)."""
        return D.from_np(self._data.dtype)

    @property
    def device(self) -> device:
        """The device: the CPU, or the GPU of a CuPy array."""
        return _device_of_array(self._data)

    @property
    def is_cuda(self) -> bool:
        """Whether the tensor lives on a CUDA GPU."""
        return self.device.type == "cuda"

    def is_floating_point(self) -> bool:
        """Whether the dtype is a floating one.

        Returns
        -------
        bool
            True for float16/32/64.
        """
        return self._data.dtype.kind == "f"

    def is_complex(self) -> bool:
        """Whether the dtype is complex.

        Returns
        -------
        bool
            True for complex64/128.
        """
        return self._data.dtype.kind == "c"

    def element_size(self) -> int:
        """The size of one element in bytes.

        Returns
        -------
        int
            The dtype's item size.
        """
        return self._data.dtype.itemsize

    def type(self, dtype: Any = None) -> Any:
        """The type name, or the tensor converted to ``dtype``.

        Parameters
        ----------
        dtype : dtype, optional
            The dtype converted to.

        Returns
        -------
        str or Tensor
            ``"torch.FloatTensor"`` ... without ``dtype``; ``self.to(dtype)`` with it.
        """
        if dtype is None:
            return "torch." + self.dtype._tname
        return self.to(dtype)

    def stride(self, dim: int | None = None) -> Any:
        """The strides in elements, or the stride of dimension ``dim``.

        Parameters
        ----------
        dim : int, optional
            A dimension (negative: from the end).

        Returns
        -------
        tuple of int or int
            All strides without ``dim``, the stride of ``dim`` with it.
        """
        st = tuple(s // self._data.dtype.itemsize for s in self._data.strides)
        return st if dim is None else st[_dim(dim, self._data.ndim)]

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Whether the elements are contiguous in row-major order.

        Parameters
        ----------
        memory_format : object, optional
            Accepted for PyTorch's signature; ignored.

        Returns
        -------
        bool
            NumPy's C-contiguous flag.
        """
        return bool(self._data.flags.c_contiguous)

    def data_ptr(self) -> int:
        """The address of the first element.

        Returns
        -------
        int
            The data pointer.
        """
        return int(self._data.__array_interface__["data"][0])

    def is_inference(self) -> bool:
        """Whether the tensor was created in inference mode.

        Returns
        -------
        bool
            The inference flag.
        """
        x = self._x
        return x is not None and x.inference

    @property
    def _version(self) -> int:
        x = self._x
        if x is not None and x.inference:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    @property
    def _base(self) -> Tensor | None:
        x = self._x
        return None if x is None else x.base

    def _is_view(self) -> bool:
        x = self._x
        return x is not None and x.base is not None

    @property
    def name(self) -> str | None:
        """The name set by autograd's anomaly mode and graph tools, or None."""
        x = self._x
        return None if x is None else x.name

    # ------------------------------------------------------------------ autograd state
    @property
    def grad_fn(self) -> Any:
        """The node that created this tensor (None for leaves)."""
        return _grad_fn_of(self)

    @property
    def requires_grad(self) -> bool:
        """Whether gradients are computed for this tensor (settable on leaves)."""
        return self._rg or _grad_fn_of(self) is not None

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        self.requires_grad_(bool(flag))

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` of a leaf in place.

        Parameters
        ----------
        requires_grad : bool, default True
            The new flag.

        Returns
        -------
        Tensor
            ``self``.

        Raises
        ------
        RuntimeError
            For a non-leaf set to False, an integer tensor set to True, or an inference
            tensor outside inference mode.
        """
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
        """Whether the tensor has no ``grad_fn`` (created by the user, or not requiring grad)."""
        return _grad_fn_of(self) is None

    @property
    def grad(self) -> Tensor | None:
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
    def grad(self, value: Tensor | None) -> None:
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
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        """Whether ``retain_grad()`` was called on this non-leaf tensor."""
        x = self._x
        return x is not None and x.retains and _grad_fn_of(self) is not None

    def retain_grad(self) -> None:
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

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Register a hook called with the gradient of this tensor during backward.

        Parameters
        ----------
        hook : callable
            ``hook(grad) -> Tensor or None``; a returned tensor replaces the gradient.

        Returns
        -------
        RemovableHandle
            A handle whose ``remove()`` removes the hook.

        Raises
        ------
        RuntimeError
            If the tensor does not require grad.
        """
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

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]
                                           ) -> RemovableHandle:
        """Register ``hook(tensor)`` called after ``.grad`` of this leaf was accumulated.

        Parameters
        ----------
        hook : callable
            ``hook(tensor) -> None``.

        Returns
        -------
        RemovableHandle
            A handle whose ``remove()`` removes the hook.

        Raises
        ------
        RuntimeError
            For a non-leaf tensor or one that does not require grad.
        """
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

    def detach(self) -> Tensor:
        """A tensor sharing this one's storage and version counter, detached from the graph.

        Under a ``compat.func`` transform (a traced value) it also stops the transform's
        derivative, as ``torch.func``'s does.

        Returns
        -------
        Tensor
            A new tensor that never requires grad.
        """
        d = self._data
        if isinstance(d, Tracer):   # the primal below the derivative layers (vmap's stays)
            while isinstance(d, PrimalTracer):
                d = cast(Any, d).primal   # (every PrimalTracer subclass has one)
            if isinstance(d, Tracer):
                d = _P.stop_gradient(d)
        t = _make(d)
        t._vc = self._vc
        x = self._x
        if x is not None and x.inference:
            _extra(t).inference = True
        return t

    def detach_(self) -> Tensor:
        """Detach this tensor from the graph in place, making it a leaf (not for views).

        Returns
        -------
        Tensor
            ``self``.

        Raises
        ------
        RuntimeError
            For a view that requires grad.
        """
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
    def data(self) -> Tensor:
        """A tensor sharing the storage but neither the history nor the version counter."""
        t = _make(self._data)
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError("Tensor.data must be set to a Tensor")
        self._data = value._data

    def backward(self, gradient: Tensor | None = None, retain_graph: bool | None = None,
                 create_graph: bool = False,
                 inputs: Tensor | Sequence[Tensor] | None = None) -> None:
        """Accumulate the gradient of this tensor into the leaves' ``.grad``.

        See :func:`ftrans.compat.autograd.backward`.

        Parameters
        ----------
        gradient : Tensor, optional
            The gradient with respect to this tensor; None for a scalar (1).
        retain_graph : bool, optional
            Keep the graph's saved tensors for another backward; ``create_graph`` by
            default.
        create_graph : bool, default False
            Record the backward pass, for higher derivatives.
        inputs : Tensor or sequence of Tensor, optional
            Accumulate only into these tensors; all leaves by default.

        Examples
        --------
        >>> import ftrans.compat as torch
        >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward()
        >>> x.grad
        tensor([2., 4.])
        """
        from .autograd import backward  # deferred: autograd's engine entry, above Tensor
        if inputs is not None and isinstance(inputs, Tensor):
            inputs = (inputs,)
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    # ------------------------------------------------------------------ conversions
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying NumPy array (shares memory).

        Parameters
        ----------
        force : bool, default False
            Allow a tensor that requires grad.

        Returns
        -------
        numpy.ndarray
            The array.

        Raises
        ------
        RuntimeError
            For a tensor that requires grad without ``force``.
        """
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return self._host("numpy")

    def item(self) -> bool | int | float | complex:
        """The single value as a Python number.

        Returns
        -------
        bool or int or float or complex
            The value.

        Raises
        ------
        RuntimeError
            For a tensor of more than one element.
        """
        if self._data.size != 1:
            raise RuntimeError(f"a Tensor with {self._data.size} elements cannot be converted "
                               "to Scalar")
        return self._host("item").reshape(()).item()

    def tolist(self) -> Any:
        """The values as nested lists of Python numbers.

        Returns
        -------
        list or Number
            Nested lists (a number for a 0-d tensor).
        """
        return self._host("tolist").tolist()

    def _host(self, what: str) -> Any:
        """The concrete array (a traced value's primal; torch.func's errors where there
        is none, see :mod:`._tracer_values`)."""
        d = self._data
        return _TV.concrete(d, what) if isinstance(d, Tracer) else d

    def __hash__(self) -> int:
        return id(self)

    def __reduce_ex__(self, proto: Any) -> Any:
        return (_rebuild, (self._data.copy(), self._rg))

    def __repr__(self) -> str:
        return _format(self)

    __str__ = __repr__


def _rebuild(data: Any, rg: bool) -> Tensor:
    t = _make(data)
    t._rg = rg
    return t


def _plain(obj: Any) -> Any:
    """Nested sequences with tensors replaced by their values."""
    if isinstance(obj, Tensor):
        return obj._data
    if isinstance(obj, (list, tuple)):
        return [_plain(o) for o in obj]
    return obj


def _dim(d: Any, ndim: int) -> int:
    d = int(d)
    n = max(ndim, 1)
    if not -n <= d < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d % n if ndim else 0


# ---------------------------------------------------------------------- construction
def _make(data: Any, grad_fn: Any = None) -> Tensor:
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


def _as_array(data: Any) -> Any:
    if isinstance(data, Tracer):   # a value traced by an ftrans transform (compat.func)
        if _tls.func_grad is False:   # made under the user's no_grad in the function
            return _P.stop_backward(data)
        return data
    if isinstance(data, np.generic) or not (hasattr(data, "__array_namespace__")
                                            or hasattr(data, "__cuda_array_interface__")):
        return np.asarray(data)
    return data  # a CuPy (or other array-API) array


def _make_plain(data: Any) -> Tensor:
    """A tensor created outside recording (marks inference tensors)."""
    t = _make(data)
    if _tls.inference:
        _extra(t).inference = True
    return t


# ----------------------------------------------------------------------- graph edges
def _acc(t: Tensor) -> Any:
    """The AccumulateGrad node of leaf ``t`` (cached weakly on the tensor)."""
    x = _extra(t)
    r = x.acc
    node = r() if r is not None else None
    if node is None:
        node = AccumulateGrad(t)
        x.acc = weakref.ref(node)
    return node


def _edge(t: Tensor) -> tuple[Any, int]:
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


def _grad_fn_of(t: Tensor) -> Any:
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


def _set_retains(node: Any, nr: int, t: Tensor) -> None:
    hk = node._hooks()
    if hk.rgh is None:
        hk.rgh = {}
    hk.rgh[nr] = t


def _requires_grad(t: Tensor) -> bool:
    return t._rg or _grad_fn_of(t) is not None


def _mark_view(out: Tensor, src: Tensor, prim: Any, params: dict[str, Any],
               extra: Sequence[Any] = ()) -> Tensor:
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


def _format(t: Tensor) -> str:
    """PyTorch's ``repr`` of ``t`` (:func:`._tensor_repr.format_tensor`)."""
    gf = _grad_fn_of(t)
    tangent = None
    if t._x is not None and t._x.fw is not None:
        tan = _fwad._repr_tangent(t)
        if tan is not None:
            tangent = _format(tan)
    return format_tensor(t._data, None if gf is None else gf.name(), t._rg, tangent)
