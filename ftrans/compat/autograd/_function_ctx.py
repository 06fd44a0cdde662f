"""A custom ``autograd.Function``'s ctx and node (:mod:`ftrans.compat.autograd.function`):
:class:`FunctionCtx` (``save_for_backward``, ``mark_dirty`` ...), :class:`BackwardCFunction`
(the ``<Name>Backward`` node that runs ``backward`` and checks its gradients) and the
metaclass that makes one node class per Function."""
from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from .. import _tensor as T
from .. import _ops as O
from .grad_mode import _tls
from . import graph as G

__all__ = ["FunctionCtx", "BackwardCFunction", "FunctionMeta"]


_NO_JVP = ("You must implement the jvp function for custom autograd.Function to use it with "
           "forward mode AD.")

_NULL = contextlib.nullcontext()


class FunctionCtx:
    """The methods ``forward``/``setup_context`` call on ``ctx``."""

    def save_for_backward(self, *tensors: T.Tensor | None) -> None:
        """Save tensors for ``backward``, where ``ctx.saved_tensors`` returns them.

        Call at most once per forward.

        Parameters
        ----------
        *tensors : Tensor or None
            Inputs, outputs or intermediates; None allowed.

        Raises
        ------
        TypeError
            If an argument is neither a Tensor nor None.
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, T.Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors: T.Tensor | None) -> None:
        """Save tensors for ``jvp`` (read back as ``ctx.saved_tensors`` there).

        Parameters
        ----------
        *tensors : Tensor or None
            The tensors.
        """
        self.saved_for_forward = tensors

    def mark_dirty(self, *args: T.Tensor) -> None:
        """Mark input tensors that ``forward`` modified in place; they must be returned.

        Parameters
        ----------
        *args : Tensor
            The modified inputs.
        """
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args: T.Tensor) -> None:
        """Mark outputs that are not differentiable (they will not require grad).

        Parameters
        ----------
        *args : Tensor
            Outputs of ``forward``.
        """
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool) -> None:
        """Set whether missing output gradients reach ``backward`` as zeros or as None.

        Parameters
        ----------
        value : bool
            True (the default): zeros of the output's shape; False: None.
        """
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs: Any) -> None:
        """Removed PyTorch API: always raises.

        Parameters
        ----------
        *pairs : Any
            Ignored.

        Raises
        ------
        RuntimeError
            Always (shared storages are tracked automatically).
        """
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages "
                           "are automatically tracked. Note that calls to `set_()` are not "
                           "tracked")


_ContextMethodMixin = FunctionCtx  # PyTorch's older name


class BackwardCFunction(G.Node, FunctionCtx):
    """The graph node of one application of a custom Function; also its ``ctx``."""

    _fast = False
    _custom = True
    _forward_cls: Any = None
    _outsv = None  # saved outputs live in ``_saved`` (what CopySlices/_rebase read)
    _saved: Any
    _keep: bool
    _is_tensor: Sequence[bool]
    _in_meta: Sequence[Any]
    _out_meta: Sequence[Any]
    needs_input_grad: tuple[bool, ...]
    materialize_grads: bool

    def name(self) -> str:
        """The node's name, ``<Function name>Backward``.

        Returns
        -------
        str
            The class name.
        """
        return type(self).__name__

    # ---------------------------------------------------------------- saved tensors
    @property
    def saved_tensors(self) -> tuple[T.Tensor | None, ...]:
        """The tensors given to ``save_for_backward``, unpacked.

        ``RuntimeError`` if one was modified in place since it was saved, or after the
        graph was freed.
        """
        if self.__dict__.get("_in_jvp"):  # in jvp: what save_for_forward saved
            return tuple(self.__dict__.get("saved_for_forward", ()))
        s = self._saved
        if s is G.FREED:
            raise G.freed_error()
        if s is None:  # not recorded (or inside forward): the objects themselves
            return tuple(getattr(self, "to_save", ()))
        return tuple(self._unpack(k) for k in range(len(s)))

    saved_variables = saved_tensors

    def _unpack(self, k: int) -> T.Tensor | None:
        e = self._saved[k]
        if e is None:
            return None
        t = G.unpack(e[1], self, True)
        if e[0]:  # an output of this node: connect it as output e[2]
            t._onr = e[2]
        return t

    @property
    def _raw_saved_tensors(self) -> tuple[G.SavedTensor | None, ...]:
        s = self._saved
        if s is G.FREED:
            raise G.freed_error()
        return tuple(None if e is None else G.SavedTensor(self, k)
                     for k, e in enumerate(s or ()))

    def _get_saved(self, k: int) -> Any:
        s = self._saved
        return G.FREED if s is G.FREED else s[k][1]

    def _set_saved(self, k: int, v: Any) -> None:
        e = self._saved[k]
        self._saved[k] = (e[0], v, e[2])

    def _free(self) -> None:
        if self._saved:
            self._saved = G.FREED

    # ---------------------------------------------------------------- backward
    def apply(self, *grads: Any) -> Any:
        """Call the user's ``backward`` on this context (no checks), as PyTorch does.

        Parameters
        ----------
        *grads : Tensor
            The output gradients.

        Returns
        -------
        Any
            What ``backward`` returns.
        """
        return self._forward_cls.backward(self, *grads)

    # the interface of an in-place operation's node that CopySlices wraps
    def _claim(self, keep: bool) -> tuple[None, None]:
        self._keep = keep
        return None, None

    def _apply(self, ct: Any, saved: Any, outsv: Any, wrap: Any) -> list[Any]:
        if wrap is None:
            return self._call_backward([ct], self._keep, False)
        res = self._call_backward([ct.tensor], self._keep, True)  # ct: a recording tracer
        return [None if r is None else wrap(r) for r in res]

    def _call_backward(self, buf: Sequence[Any], keep: bool, cg: bool) -> list[Any]:
        """Run ``backward`` on the output gradients ``buf`` (arrays, or Tensors when
        ``cg``); returns one gradient per edge (tensor argument)."""
        if self._saved is G.FREED:
            raise G.freed_error()
        grads: list[Any] = []
        mat = self.materialize_grads
        for g, meta in zip(buf, self._out_meta):
            if g is None:
                if mat and meta is not None:
                    grads.append(T._make(np.zeros(meta[0], meta[1])))
                else:
                    grads.append(None)
            else:
                grads.append(g if cg else T._make(g))
        prev = _tls.grad
        _tls.grad = cg
        try:
            res = self._forward_cls.backward(self, *grads)
        finally:
            _tls.grad = prev
        res = self._check_grads(res, cg)
        if not keep:  # freed only on success: a failing backward can be rerun (PyTorch)
            self._free()
        return res

    def _check_grads(self, res: Any, cg: bool) -> list[Any]:
        if not isinstance(res, tuple):
            res = (res,)
        is_t = self._is_tensor
        n_in = len(is_t)
        name = self.name()
        if len(res) != n_in:
            if len(res) < n_in or any(r is not None for r in res[n_in:]):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {n_in}, got {len(res)})")
            res = res[:n_in]
        outs: list[Any] = []
        k = -1
        for j, r in enumerate(res):
            if not is_t[j]:
                if r is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None "
                                       f"at position {j + 1}, but the corresponding forward "
                                       "input was not a Variable")
                continue
            k += 1
            if r is None or not self.needs_input_grad[j]:
                if r is not None and not isinstance(r, T.Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
                outs.append(None)
                continue
            if not isinstance(r, T.Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
            shape, dtype = self._in_meta[k]
            r = _fit_grad(r, shape, dtype, name, k, cg)
            outs.append(r if cg else r._data)
        return outs


def _fit_grad(r: T.Tensor, shape: Sequence[int], dtype: Any, name: str, k: int, cg: bool
              ) -> T.Tensor:
    """``r`` summed over the dimensions it was broadcast along and converted to ``dtype``
    (PyTorch's validation of a custom backward's outputs)."""
    rs = r._data.shape
    if rs != tuple(shape):
        ok = len(rs) >= len(shape) and all(
            s == 1 or s == q for s, q in zip(shape[::-1], rs[::-1]))
        if not ok:
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {k} - got "
                               f"{list(rs)} but expected shape compatible with {list(shape)}")
        lead = len(rs) - len(shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                          if s == 1 and rs[lead + i] != 1)
        if cg:
            r = O.sum(r, dim=axes) if axes else r
            r = O.reshape(r, tuple(shape))
        else:
            r = T._make(r._data.sum(axis=axes).reshape(shape))
    if r._data.dtype != dtype:
        if r._data.dtype.kind == "c" and np.dtype(dtype).kind != "c":
            r = O.real(r)  # the gradient of a real input is real (autograd notes)
        if r._data.dtype != dtype:
            r = O._convert(r, np.dtype(dtype)) if cg else T._make(r._data.astype(dtype))
    return r


class FunctionMeta(type):
    """Creates ``<Name>Backward``, the node class of each Function subclass.

    Parameters
    ----------
    name : str
        The class name.
    bases : tuple of type
        The base classes.
    attrs : dict
        The class namespace.
    """

    _backward_cls: type

    def __init__(cls, name: str, bases: tuple[type, ...], attrs: dict[str, Any]) -> None:
        bcls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        bcls.__module__ = cls.__module__
        bcls.__qualname__ = name + "Backward"
        cls._backward_cls = bcls
        super().__init__(name, bases, attrs)
