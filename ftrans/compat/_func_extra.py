"""``compat.func``'s remaining helpers: ``torch.func.functionalize`` and
``replace_all_batch_norm_modules_``, and functorch's ``make_functional``,
``make_functional_with_buffers`` and ``combine_state_for_ensemble`` (PyTorch keeps these
three in the separate ``functorch`` package; here they live in ``ftrans.compat.func``).

They use only the duck-typed module interface (``named_parameters()``,
``named_buffers()``, ``modules()``, calling the module), like :mod:`._func_modules`.
"""
from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from . import _ops as O
from ._func_modules import _named, functional_call
from .types import Tensor

__all__ = ["functionalize", "replace_all_batch_norm_modules_", "make_functional",
           "make_functional_with_buffers", "combine_state_for_ensemble", "FunctionalModule",
           "FunctionalModuleWithBuffers"]


def functionalize(func: Callable[..., Any], *, remove: str = "mutations"
                  ) -> Callable[..., Any]:
    """``torch.func.functionalize``: returns ``func`` unchanged in behaviour.

    compat's operations under ``compat.func`` transforms are already functional (an
    in-place operation computes a new value and rebinds the tensor), which is what
    functionalize guarantees.

    Parameters
    ----------
    func : callable
        The function.
    remove : {"mutations", "mutations_and_views"}, optional
        torch's option (no effect here).

    Returns
    -------
    callable
        A wrapper calling ``func`` (``__wrapped__`` is ``func``).

    Raises
    ------
    RuntimeError
        For another ``remove``.
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(f"functionalize(f, remove='mutations'): received invalid argument "
                           f"for remove={remove}. Valid options are:\n     remove='mutations': "
                           "all inplace and out= operators will be removed from the program, "
                           "and replaced with their out-of-place equivalents.\n     "
                           "remove='mutations_and_views': In addition to the above, all "
                           "aliasing operators {view} will be replaced with their non-"
                           "aliasing counterparts, {view}_copy.\n")

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)
    wrapped.__name__ = getattr(func, "__name__", "functionalized")
    wrapped.__doc__ = getattr(func, "__doc__", None)
    setattr(wrapped, "__wrapped__", func)
    return wrapped


def _is_batch_norm(m: Any) -> bool:
    return "BatchNorm" in type(m).__name__ and hasattr(m, "track_running_stats")


def replace_all_batch_norm_modules_(root: Any) -> Any:
    """Make every batch-norm module under ``root`` stop tracking running statistics.

    ``torch.func.replace_all_batch_norm_modules_``, in place: ``running_mean``,
    ``running_var`` and ``num_batches_tracked`` become None, ``track_running_stats``
    False, so the modules always normalize with the batch statistics -- what ``vmap``
    over a model needs.

    Parameters
    ----------
    root : Module
        The model.

    Returns
    -------
    Module
        ``root``.
    """
    for m in [root] + list(root.modules()):
        if _is_batch_norm(m) and m.track_running_stats:
            m.running_mean = None
            m.running_var = None
            m.num_batches_tracked = None
            m.track_running_stats = False
    return root


class FunctionalModule:
    """functorch's ``FunctionalModule``: ``fmodel(params, *args, **kwargs)`` calls a copy
    of the model with its parameters replaced by ``params`` (a tuple in the order of
    ``named_parameters()``).  Unlike functorch's it is a plain callable (``train()``,
    ``eval()`` and ``stateless_model`` are there), not an ``nn.Module``.

    Parameters
    ----------
    stateless_model : Module
        The model copy called.
    param_names : sequence of str
        The names of the tensors of ``params``, in order.
    buffer_names : sequence of str, optional
        The names of the buffers (:class:`FunctionalModuleWithBuffers`).
    """

    def __init__(self, stateless_model: Any, param_names: Iterable[str],
                 buffer_names: Iterable[str] = ()) -> None:
        self.stateless_model = stateless_model
        self.param_names = tuple(param_names)
        self.buffer_names = tuple(buffer_names)

    def _call(self, tensors: Sequence[Tensor], names: Sequence[str], args: Sequence[Any],
              kwargs: dict[str, Any]) -> Any:
        if len(tensors) != len(names):
            raise RuntimeError(f"{type(self).__name__}: expected {len(names)} tensors, got "
                               f"{len(tensors)}")
        return functional_call(self.stateless_model, dict(zip(names, tensors)), tuple(args),
                               kwargs)

    def forward(self, params: Iterable[Tensor], *args: Any, **kwargs: Any) -> Any:
        """Call the model with its parameters replaced by ``params``.

        Parameters
        ----------
        params : iterable of Tensor
            One tensor per name of ``param_names``, in order.
        *args, **kwargs : Any
            The model's arguments.

        Returns
        -------
        Any
            What the model returns.

        Raises
        ------
        RuntimeError
            For the wrong number of tensors.
        """
        return self._call(tuple(params), self.param_names, args, kwargs)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.forward(*args, **kwargs)

    def train(self, mode: bool = True) -> FunctionalModule:
        """Set the model's training mode.

        Parameters
        ----------
        mode : bool, optional
            True for training, False for evaluation.

        Returns
        -------
        FunctionalModule
            ``self``.
        """
        self.stateless_model.train(mode)
        return self

    def eval(self) -> FunctionalModule:
        """Set the model to evaluation mode (``train(False)``).

        Returns
        -------
        FunctionalModule
            ``self``.
        """
        return self.train(False)


class FunctionalModuleWithBuffers(FunctionalModule):
    """functorch's ``FunctionalModuleWithBuffers``: ``fmodel(params, buffers, *args, **kwargs)``.

    Parameters
    ----------
    stateless_model : Module
        The model copy called.
    param_names : sequence of str
        The names of the tensors of ``params``, in order.
    buffer_names : sequence of str, optional
        The names of the tensors of ``buffers``, in order.
    """

    def forward(self, params: Iterable[Tensor],
                buffers: Iterable[Tensor], *args: Any, **kwargs: Any) -> Any:
        """Call the model with its parameters and buffers replaced.

        Parameters
        ----------
        params : iterable of Tensor
            One tensor per name of ``param_names``, in order.
        buffers : iterable of Tensor
            One tensor per name of ``buffer_names``, in order.
        *args, **kwargs : Any
            The model's arguments.

        Returns
        -------
        Any
            What the model returns.

        Raises
        ------
        RuntimeError
            For the wrong number of tensors.
        """
        return self._call(tuple(params) + tuple(buffers), self.param_names + self.buffer_names,
                          args, kwargs)


def _copy_state(model: Any, disable_autograd_tracking: bool
                ) -> tuple[Any, list[str], tuple[Tensor, ...]]:
    model_copy = copy.deepcopy(model)
    named = _named(model_copy, "named_parameters")
    seen: set[int] = set()
    names: list[str] = []
    params: list[Tensor] = []
    for n, p in named:   # tied weights: one entry (functional_call ties the other names)
        if id(p) not in seen:
            seen.add(id(p))
            names.append(n)
            params.append(p)
    if disable_autograd_tracking:
        params = [p.detach() for p in params]
    return model_copy, names, tuple(params)


def make_functional(model: Any, disable_autograd_tracking: bool = False
                    ) -> tuple[FunctionalModule, tuple[Tensor, ...]]:
    """functorch's ``make_functional``: the model as a function of its parameters.

    Parameters
    ----------
    model : Module
        A model without buffers.
    disable_autograd_tracking : bool, optional
        Detach the returned parameters.

    Returns
    -------
    tuple
        ``(fmodel, params)``: ``params`` the parameters of a copy of ``model`` (new
        leaves; detached with ``disable_autograd_tracking``), ``fmodel(params, *args)``
        the model as a function of them.

    Raises
    ------
    RuntimeError
        For a model with buffers (use :func:`make_functional_with_buffers`).
    """
    if len(_named(model, "named_buffers")) > 0:
        raise RuntimeError("make_functional(model): `model` has buffers. Please use "
                           "make_functional_with_buffers(model) instead.")
    model_copy, names, params = _copy_state(model, disable_autograd_tracking)
    return FunctionalModule(model_copy, names), params


def make_functional_with_buffers(model: Any, disable_autograd_tracking: bool = False
                                 ) -> tuple[FunctionalModuleWithBuffers, tuple[Tensor, ...],
                                            tuple[Tensor, ...]]:
    """functorch's ``make_functional_with_buffers``: the model as a function of its state.

    Parameters
    ----------
    model : Module
        The model.
    disable_autograd_tracking : bool, optional
        Detach the returned parameters.

    Returns
    -------
    tuple
        ``(fmodel, params, buffers)``; ``fmodel(params, buffers, *args)`` (see
        :func:`make_functional`).
    """
    model_copy, names, params = _copy_state(model, disable_autograd_tracking)
    bnamed = [(n, b) for n, b in _named(model_copy, "named_buffers") if b is not None]
    return (FunctionalModuleWithBuffers(model_copy, names, [n for n, _ in bnamed]), params,
            tuple(b for _, b in bnamed))


def combine_state_for_ensemble(models: Iterable[Any]
                               ) -> tuple[FunctionalModuleWithBuffers, tuple[Tensor, ...],
                                          tuple[Tensor, ...]]:
    """functorch's ``combine_state_for_ensemble``: stacked state for ``vmap`` over models.

    Parameters
    ----------
    models : iterable of Module
        Instances of one class, all in training or all in eval mode.

    Returns
    -------
    tuple
        ``(fmodel, params, buffers)`` where each parameter (buffer) is the detached stack
        of the models' along a new dimension 0, for ``vmap(fmodel)(params, buffers, x)``.

    Raises
    ------
    RuntimeError
        For no models, mixed classes or mixed training modes.
    """
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same "
                           "class.")
    parts = [make_functional_with_buffers(m) for m in models]

    def stack(k: int) -> tuple[Tensor, ...]:
        return tuple(O.stack(list(s), 0).detach() for s in zip(*[p[k] for p in parts]))
    return parts[0][0], stack(1), stack(2)
