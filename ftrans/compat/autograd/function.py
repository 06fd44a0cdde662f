"""``torch.autograd.Function``: user-defined operations with their own backward formula.

A subclass defines ``forward`` and ``backward`` as static methods, either in the classic
style ``forward(ctx, *args, **kwargs)`` or in the newer style ``forward(*args)`` plus
``setup_context(ctx, inputs, output)``; ``MyFn.apply(*args)`` runs it.  As in PyTorch
(``torch.autograd`` reference, "Function"; "Extending torch.autograd"):

* ``forward`` runs with grad mode off.  When grad mode is on and a tensor argument
  requires grad, the outputs get one shared node, an instance of ``<Name>Backward`` --
  which *is* the ``ctx`` object the static methods received (attributes set on ``ctx``
  in ``forward`` are readable on ``out.grad_fn``).  The node has one edge per *tensor*
  argument (``next_functions``) and one gradient slot per output.
* ``ctx.save_for_backward(*tensors)`` saves inputs, outputs or intermediates (or None);
  ``ctx.saved_tensors`` unpacks them, raising ``RuntimeError`` if one was modified in
  place since (version counters) or if the graph was freed.  Saved-tensor hooks
  (``torch.autograd.graph.saved_tensors_hooks``) apply to them.
* ``ctx.mark_dirty(*tensors)``: inputs modified in place by ``forward``; they must be
  returned, and the returned object is the input itself with its history rewritten.
* ``ctx.mark_non_differentiable(*outputs)``: those outputs do not require grad;
  ``backward`` still receives a (zero) gradient for them.  Integer outputs are never
  differentiable.
* ``ctx.set_materialize_grads(False)``: outputs that got no gradient are passed to
  ``backward`` as None instead of zeros.
* ``backward(ctx, *grad_outputs)`` returns one gradient per ``forward`` argument (None
  for non-tensor arguments and for inputs that need none; trailing extra Nones are
  allowed).  A wrong count, a non-None gradient for a non-tensor argument, a gradient
  whose shape cannot be summed to the input's shape -> ``RuntimeError`` (PyTorch's
  messages); gradients are converted to the input's dtype and summed over broadcast
  dimensions.  ``backward`` runs with grad mode equal to ``create_graph``, so a
  backward written in differentiable compat operations supports double backward.
* ``jvp(ctx, *tangents)`` (optional) gives forward-mode AD
  (``torch.autograd.forward_ad``) its output tangents.

Under ftrans's functional transforms (``torch.func``'s counterparts; the Function must use
the ``setup_context`` style, as ``torch.func`` requires), ``apply`` takes ftrans values
(arrays, tracers) for its tensor arguments and returns ftrans values:

* ``ftrans.vmap``: the Function's ``vmap`` staticmethod, or ``generate_vmap_rule = True``
  (a loop over the batch) -- see ``_apply_batched``;
* ``ftrans.grad``/``vjp``/``value_and_grad``/``jacrev``: ``backward`` (through
  ``ftrans.custom_vjp``'s primitive); ``ftrans.jvp``/``jacfwd``: the ``jvp`` staticmethod
  (through ``ftrans.custom_jvp``'s) -- see ``_apply_transformed``.  One differentiation
  level only (no ``grad`` of ``grad``, no ``hessian``): forward, backward and jvp compute
  on concrete arrays.

The ctx and node classes are in ``_function_ctx.py``, the eager ``apply`` in
``_function_apply.py`` and ``apply`` under the transforms in ``_function_transforms.py``.
"""
from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ...core.trace import Tracer
from .. import _tensor as T
from .. import _ops as O
from .grad_mode import _tls
from . import graph as G
from ._function_ctx import BackwardCFunction, FunctionCtx, FunctionMeta, _NO_JVP
from ._function_apply import _apply, _bind_args, _overrides
from ._function_transforms import _apply_traced

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable",
           "InplaceFunction"]


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of user-defined differentiable operations (``torch.autograd.Function``).

    Subclasses define static ``forward`` and ``backward`` (and optionally
    ``setup_context``, ``jvp``, ``vmap``) and are called through ``apply``; see the
    module docstring.  Instantiating a Function is deprecated (a ``DeprecationWarning``).

    Parameters
    ----------
    *args, **kwargs : Any
        Ignored (instances are deprecated).

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> class Exp(torch.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, i):
    ...         result = i.exp()
    ...         ctx.save_for_backward(result)
    ...         return result
    ...
    ...     @staticmethod
    ...     def backward(ctx, grad_output):
    ...         result, = ctx.saved_tensors
    ...         return grad_output * result
    >>> x = torch.zeros(2, requires_grad=True)
    >>> y = Exp.apply(x)
    >>> y.sum().backward()
    >>> x.grad
    tensor([1., 1.])
    """

    generate_vmap_rule = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args: Any, **kwargs: Any) -> Any:
        """Compute the outputs (override).

        Parameters
        ----------
        *args, **kwargs : Any
            ``ctx`` then the inputs, or only the inputs where ``setup_context`` is defined.

        Returns
        -------
        Any
            The outputs: a Tensor or a tuple.

        Raises
        ------
        NotImplementedError
            If the subclass does not define it.
        """
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        """Save what ``backward`` needs when ``forward`` does not take ``ctx`` (override).

        Parameters
        ----------
        ctx : FunctionCtx
            The context (``save_for_backward`` ...).
        inputs : tuple
            The arguments given to ``apply``.
        output : Any
            What ``forward`` returned.

        Returns
        -------
        Any
            Ignored.

        Raises
        ------
        NotImplementedError
            If the subclass does not define it.
        """
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        """Gradients of the inputs from those of the outputs (override).

        Parameters
        ----------
        ctx : FunctionCtx
            The context, with ``saved_tensors``.
        *grad_outputs : Tensor
            One gradient per output of ``forward``.

        Returns
        -------
        Any
            One gradient (or None) per input of ``forward``: a Tensor or a tuple.

        Raises
        ------
        NotImplementedError
            If the subclass does not define it.
        """
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx: Any, *grad_inputs: Any) -> Any:
        """Output tangents from input tangents, for forward-mode AD (override).

        Parameters
        ----------
        ctx : FunctionCtx
            The context (``saved_tensors`` returns what ``save_for_forward`` saved).
        *grad_inputs : Tensor or None
            One tangent per input of ``forward``.

        Returns
        -------
        Any
            One tangent per output: a Tensor or a tuple.

        Raises
        ------
        NotImplementedError
            If the subclass does not define it.
        """
        raise NotImplementedError(_NO_JVP)

    @staticmethod
    def vmap(info: Any, in_dims: tuple[int | None, ...], *args: Any) -> Any:
        """Batching rule (override, or set ``generate_vmap_rule = True``).

        Parameters
        ----------
        info : Any
            ``batch_size`` and ``randomness`` of the enclosing vmap.
        in_dims : tuple of (int or None)
            The batch dimension of each argument (None: not batched).
        *args : Any
            The arguments of ``forward``, batched.

        Returns
        -------
        Any
            ``(outputs, out_dims)``.

        Raises
        ------
        NotImplementedError
            If the subclass does not define it.
        """
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run the operation on ``args``.

        One graph node is recorded when grad mode is on and a tensor argument requires
        grad; under ``ftrans`` transforms (vmap, grad ...) the Function's rules are used.

        Parameters
        ----------
        *args, **kwargs : Any
            The arguments of ``forward`` (without ``ctx``).

        Returns
        -------
        Any
            What ``forward`` returns, its tensors attached to the node.
        """
        custom_setup = cls.__dict__.get("_custom_setup")
        if custom_setup is None:  # cached per class (inspect is slow)
            custom_setup = _overrides(cls, "setup_context")
            type.__setattr__(cls, "_custom_setup", custom_setup)
        if custom_setup:
            args = _bind_args(cls.forward, args, kwargs)
            kwargs = {}
        for a in args:
            if isinstance(a, Tracer):
                return _apply_traced(cls, args, custom_setup)
        return _apply(cls, args, kwargs, custom_setup)


def once_differentiable(fn: _F) -> _F:
    """Decorator for ``backward``: the gradients it returns cannot be differentiated again.

    A double backward through them raises ``RuntimeError``.

    Parameters
    ----------
    fn : callable
        A ``backward(ctx, *grad_outputs)``.

    Returns
    -------
    callable
        ``fn`` run without recording; where a gradient argument requires grad, its
        results are attached to a node whose backward raises.
    """
    @functools.wraps(fn)
    def wrapper(ctx: Any, *args: Any) -> Any:
        prev = _tls.grad
        _tls.grad = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _tls.grad = prev
        if not _tls.grad:
            return outputs
        req = [a for a in args if isinstance(a, T.Tensor) and a.requires_grad]
        if not req:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        res = tuple(_delayed_error(o, req, ctx) if isinstance(o, T.Tensor) else o
                    for o in outs)
        return res[0] if single else res
    return wrapper  # type: ignore[return-value]  # functools.wraps: fn's signature


def _delayed_error_bwd(node: Any, ct: Any, primals: Any, ans: Any, needs: Any) -> Any:
    raise RuntimeError("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


def _delayed_error(o: T.Tensor, req: list[T.Tensor], ctx: Any) -> T.Tensor:
    cls = G.node_class("DelayedError", ("self",) * len(req), _delayed_error_bwd)
    return O._record(cls, None, {}, list(req), [a._data for a in req], o._data,
                     O.SAVE_NONE)


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (legacy PyTorch helper).

    Parameters
    ----------
    inplace : bool, optional
        The flag, stored as ``self.inplace``.
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace
