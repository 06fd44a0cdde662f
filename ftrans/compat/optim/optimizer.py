"""``Optimizer``: the base class of ``ftrans.compat.optim`` (PyTorch's ``torch.optim.Optimizer``).

Parameters are leaf compat Tensors (anything with ``requires_grad``: no ``nn.Module``
needed), given as an iterable of Tensors or of dicts (parameter groups: ``{"params":
[...], "lr": ...}``; unspecified options take the optimizer's ``defaults``).  ``state``
maps each parameter to a dict of per-parameter state.  ``state_dict()`` has PyTorch's
format -- ``{"state": {index: {...}}, "param_groups": [{..., "params": [indices]}]}``,
indices numbering the parameters across groups in order -- so a state dict saved by
PyTorch loads here and back.  The updates of SGD, Adam(W), RMSprop and Adagrad are
:mod:`ftrans.optim`'s transformations (PyTorch's formulas, written once there), applied
in place to the tensors' arrays in ``no_grad`` mode, with the version counters bumped as
in-place tensor operations bump them; LBFGS runs on compat operations.
"""
from __future__ import annotations

import copy
import functools
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable
from itertools import chain
from typing import Any, TypeAlias

import numpy as np

from .. import _tensor as _T
from .. import _dtype as D
from .. import _factories as F
from ..types import DTypeArg, Tensor
from ..autograd.grad_mode import no_grad, enable_grad
from ..autograd.graph import RemovableHandle

__all__ = ["Optimizer", "required", "ParamsT"]

#: What optimizers take as ``params`` (torch's ``torch.optim.optimizer.ParamsT``): leaf
#: tensors, parameter-group dicts, or ``named_parameters()`` pairs.
ParamsT: TypeAlias = (Iterable[Tensor] | Iterable[dict[str, Any]]
                      | Iterable[tuple[str, Tensor]])


class _Required:
    """Marker of a hyper-parameter without a default (PyTorch's ``optim.optimizer.required``)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


def _typename(obj: Any) -> str:
    if isinstance(obj, _T.Tensor):
        return "torch." + obj.dtype._tname
    return type(obj).__module__ + "." + type(obj).__qualname__ if type(obj).__module__ not in (
        "builtins",) else type(obj).__qualname__


def _no_grad_step(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``step`` in no-grad mode (the closure re-enables grad itself).

    The wrapper shows ``fn``'s signature and docstring (``functools.wraps``)."""
    @functools.wraps(fn)
    def step(self: Optimizer, *args: Any, **kwargs: Any) -> Any:
        if self.__dict__.get("_in_step"):     # a subclass's step calling super().step()
            return fn(self, *args, **kwargs)
        for h in list(self._step_pre_hooks.values()):
            r = h(self, args, kwargs)
            if r is not None:
                args, kwargs = r
        self._in_step = True
        try:
            with no_grad():
                out = fn(self, *args, **kwargs)
        finally:
            self._in_step = False
        self._opt_called = True
        for h in list(self._step_post_hooks.values()):
            h(self, args, kwargs)
        return out
    step._ftrans_step = True  # type: ignore[attr-defined]
    return step


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``).

    Subclasses implement ``step``.

    Parameters
    ----------
    params : iterable of Tensor or of dict
        Leaf tensors, dicts defining parameter groups (``{"params": [...], "lr": ...}``),
        or ``(name, tensor)`` pairs (``named_parameters()``).
    defaults : dict
        Default values of the optimization options (used by groups that do not set them).

    Raises
    ------
    TypeError
        When ``params`` is a single Tensor or holds a non-Tensor.
    ValueError
        For an empty parameter list, a non-leaf Tensor, a parameter in two groups, or a
        group missing a required option.
    """

    _in_step: bool        # inside step (a subclass's step calling super().step())
    _opt_called: bool     # step has run (read by the lr schedulers)

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self._step_pre_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        self._step_post_hooks: OrderedDict[int, Callable[..., Any]] = OrderedDict()
        if isinstance(params, _T.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        self.state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        self.param_groups: list[dict[str, Any]] = []
        param_groups: list[Any] = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for g in param_groups:
            self.add_param_group(g)

    # every subclass's step runs under no_grad, with the hooks (see __init_subclass__)
    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        st = cls.__dict__.get("step")
        if st is not None and not getattr(st, "_ftrans_step", False):
            cls.step = _no_grad_step(st)  # type: ignore[method-assign]

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.__dict__.setdefault("_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_step_post_hooks", OrderedDict())

    def __repr__(self) -> str:
        s = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += "\n"
            s += f"Parameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        s += ")"
        return s

    # ------------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a parameter group, e.g. layers unfrozen during fine-tuning.

        Options the group does not set take the optimizer's ``defaults``.

        Parameters
        ----------
        param_group : dict
            ``"params"`` (a Tensor, or a list of Tensors or of ``(name, Tensor)`` pairs)
            and optional options (``"lr"`` ...).

        Raises
        ------
        TypeError
            A group that is not a dict, parameters in a set, or a non-Tensor parameter.
        ValueError
            A non-leaf Tensor, names for only some parameters, a missing required option,
            or a parameter already in another group.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, _T.Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs. "
                            "Please use a list instead.")
        else:
            param_group["params"] = list(params)
        names = []
        plist = []
        for p in param_group["params"]:
            if isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str):
                names.append(p[0])   # named_parameters() given
                p = p[1]
            plist.append(p)
        if names:
            if len(names) != len(plist):
                raise ValueError("all optimizer params should be with/without names. Some "
                                 "param names are missing")
            param_group["param_names"] = names
        param_group["params"] = plist
        for p in plist:
            if not isinstance(p, _T.Tensor):
                raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                                + _typename(p))
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            param_group.setdefault(name, default)
        if len({id(p) for p in plist}) != len(plist):
            import warnings
            warnings.warn("optimizer contains a parameter group with duplicate parameters; in "
                          "future, this will cause an error; see "
                          "github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)
        seen: set[int] = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
        if any(id(p) in seen for p in plist):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------------ grads
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters.

        Parameters
        ----------
        set_to_none : bool, optional
            Set them to None (default, as PyTorch 2.x); with False, to zeros in place
            (detached from any graph).
        """
        for group in self.param_groups:
            for p in group["params"]:
                g = p.grad
                if g is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """Perform one optimization step (implemented by each optimizer).

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss (needed by :class:`LBFGS`).

        Returns
        -------
        float or None
            The closure's loss, or None without a closure.

        Raises
        ------
        NotImplementedError
            In the base class.
        """
        raise NotImplementedError

    # ------------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register a hook called before each step.

        Parameters
        ----------
        hook : callable
            ``hook(optimizer, args, kwargs) -> None or (args, kwargs)``; a returned pair
            replaces the step's arguments.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return RemovableHandle(self._step_pre_hooks, hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Register a hook called after each step.

        Parameters
        ----------
        hook : callable
            ``hook(optimizer, args, kwargs) -> None``.

        Returns
        -------
        RemovableHandle
            ``handle.remove()`` unregisters the hook.
        """
        return RemovableHandle(self._step_post_hooks, hook)

    # ------------------------------------------------------------------------ state dicts
    def state_dict(self) -> dict[str, Any]:
        """The optimizer's state as a dict, in PyTorch's format.

        The state's tensors are referenced, not copied (as in PyTorch: save or deep-copy
        the result to keep a snapshot).

        Returns
        -------
        dict
            ``{"state": {index: per-parameter state}, "param_groups": [options and
            "params": [indices]]}``, indices numbering the parameters across groups in
            order.
        """
        mapping: dict[int, int] = {}
        start = 0

        def pack(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {(mapping[id(k)] if isinstance(k, _T.Tensor) else k): v
                 for k, v in self.state.items()}
        return {"state": state, "param_groups": groups}

    @staticmethod
    def _cast_state(param: Tensor, value: Any, key: str | None = None) -> Any:
        """A state value for ``param``: tensors copied and, except ``step``, converted to the
        parameter's floating dtype (as PyTorch's ``_process_value_according_to_param_policy``)."""
        if isinstance(value, _T.Tensor):
            if key == "step":
                return value.clone()
            if param.is_floating_point() or param.is_complex():
                return value.to(param.dtype).clone() if value.dtype != param.dtype \
                    and (value.is_floating_point() or value.is_complex()) else value.clone()
            return value.clone()
        if isinstance(value, dict):
            return {k: Optimizer._cast_state(param, v, k) for k, v in value.items()}
        if isinstance(value, (list, tuple)):
            return type(value)(Optimizer._cast_state(param, v, key) for v in value)
        return copy.deepcopy(value)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load a state dict made by :meth:`state_dict` (here or by PyTorch).

        Parameters
        ----------
        state_dict : dict
            As :meth:`state_dict` returns it.

        Raises
        ------
        ValueError
            When the number of groups or of parameters per group differs.
        """
        state_dict = dict(state_dict)
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError("loaded state dict contains a parameter group that doesn't match "
                             "the size of optimizer's group")
        id_map = dict(zip(chain.from_iterable(g["params"] for g in saved_groups),
                          chain.from_iterable(g["params"] for g in groups)))
        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {kk: self._cast_state(param, vv, kk) for kk, vv in v.items()}
            else:
                state[k] = copy.deepcopy(v)

        def update_group(group: dict[str, Any], new_group: dict[str, Any]) -> dict[str, Any]:
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state, "param_groups": [
            update_group(g, ng) for g, ng in zip(groups, saved_groups)]})


def _params_with_grad(group: dict[str, Any]) -> tuple[list[Tensor], list[Tensor]]:
    """(parameters of ``group`` that have a gradient, their gradients)."""
    ps: list[Tensor] = []
    gs: list[Tensor] = []
    for p in group["params"]:
        if p.grad is not None:
            ps.append(p)
            gs.append(p.grad)
    return ps, gs


def _written(*tensors: Tensor | None) -> None:
    """Record an in-place update of the tensors' arrays: bump the version counters, as
    every in-place tensor operation does (autograd then detects stale saved values)."""
    for t in tensors:
        if t is not None:
            t._vc[0] += 1


#: Set to False to run every optimizer on its composition of ``ftrans.numpy`` operations
#: (``ftrans.optim``'s ``fused=False``; tests compare it with the fused one-pass path).
USE_FUSED_KERNELS = True


def _use_fused(group: dict[str, Any]) -> bool:
    """The fused one-pass updates unless switched off (:data:`USE_FUSED_KERNELS`) or the group asks for
    the composition (``fused=False`` or ``differentiable=True``)."""
    return (USE_FUSED_KERNELS and group.get("fused") is not False
            and not group.get("differentiable"))


def _float(x: Any) -> Any:
    """A hyper-parameter as a Python number (a 0-d Tensor's value)."""
    return x.item() if isinstance(x, _T.Tensor) else x


class _FunctionalOptimizer(Optimizer):
    """An optimizer whose update is an :mod:`ftrans.optim` transformation applied in place.

    Subclasses give ``_keys`` (the group options the transformation depends on),
    ``_state_type`` (its state NamedTuple), ``_transformation(group, fused)`` (the
    ``ftrans.optim`` object) and ``_state(p, group) -> (count, arrays, step, written)``:
    torch's per-parameter state of ``p`` (created on first use) as the number of updates
    made, the NumPy arrays of the state fields (None where inactive), the ``step`` tensor
    to advance (or None) and the tensors the update writes.  :meth:`step` gathers the
    parameters of a group that share a count and calls ``update(grads, state, params,
    inplace=True)`` once for them, so parameter groups, ``state_dict`` and hooks stay
    PyTorch's while the formulas live once, in ``ftrans.optim``.
    """

    _keys: tuple[str, ...] = ()
    _state_type: type[Any]              # the ftrans.optim state NamedTuple

    def _transformation(self, group: dict[str, Any], fused: bool) -> Any:
        raise NotImplementedError

    def _state(self, p: Tensor, group: dict[str, Any]) -> tuple[float, tuple[Any, ...],
                                                                 Tensor | None, tuple[Any, ...]]:
        raise NotImplementedError

    def _tx(self, group: dict[str, Any]) -> Any:
        fused = _use_fused(group)
        key = (fused,) + tuple(_float(group[k]) for k in self._keys)
        cache = self.__dict__.setdefault("_tx_cache", {})
        hit = cache.get(id(group))
        if hit is None or hit[0] != key:
            hit = cache[id(group)] = (key, self._transformation(group, fused))
        return hit[1]

    def step(self, closure: Callable[[], float] | None = None) -> float | None:
        """Perform one update of every parameter that has a gradient.

        Parameters
        ----------
        closure : callable, optional
            Re-evaluates the model and returns the loss; called with grad enabled before
            the update.

        Returns
        -------
        float or None
            ``closure()``'s loss, or None without a closure.
        """
        loss = _closure_loss(closure)
        for group in self.param_groups:
            batches: dict[float, Any] = {}
            for p, grad in zip(*_params_with_grad(group)):
                count, arrays, step_t, written = self._state(p, group)
                b: Any = batches.get(count)
                if b is None:
                    b = batches[count] = ([], [], [[] for _ in arrays], [])
                b[0].append(grad.numpy(force=True))
                b[1].append(p.numpy(force=True))
                for lst, a in zip(b[2], arrays):
                    lst.append(a)
                b[3].append((p, step_t, written))
            if not batches:
                continue
            update = self._tx(group).update
            for count, (gs, ps, fields, done) in batches.items():
                state = self._state_type(np.array(count), *(
                    None if f[0] is None else f for f in fields))
                update(gs, state, ps, inplace=True)
                for p, step_t, written in done:
                    if step_t is not None:
                        a = step_t.numpy(force=True)
                        a += 1
                    _written(p, step_t, *written)
        return loss


def _step_tensor(dtype: DTypeArg = None) -> Tensor:
    """The ``step`` state entry: a 0-d tensor of the scalar dtype PyTorch uses (float64
    when the default dtype is float64, else float32)."""
    dt = D.float64 if D.get_default_dtype() == D.float64 else D.float32
    return F.tensor(0.0, dtype=dt)


def _closure_loss(closure: Callable[[], float] | None) -> float | None:
    if closure is None:
        return None
    with enable_grad():
        return closure()
