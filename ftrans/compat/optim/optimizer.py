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
from collections import OrderedDict, defaultdict
from itertools import chain

import numpy as np

from .. import _tensor as _T
from .. import _dtype as D
from .. import _factories as F
from ..autograd.grad_mode import no_grad, enable_grad
from ..autograd.graph import RemovableHandle

__all__ = ["Optimizer", "required"]


class _Required:
    """Marker of a hyper-parameter without a default (PyTorch's ``optim.optimizer.required``)."""

    def __repr__(self):
        return "<required parameter>"


required = _Required()


def _typename(obj):
    if isinstance(obj, _T.Tensor):
        return "torch." + obj.dtype._tname
    return type(obj).__module__ + "." + type(obj).__qualname__ if type(obj).__module__ not in (
        "builtins",) else type(obj).__qualname__


def _no_grad_step(fn):
    """Run ``step`` in no-grad mode (the closure re-enables grad itself)."""
    def step(self, *args, **kwargs):
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
    step.__name__ = fn.__name__
    step.__doc__ = fn.__doc__
    step._ftrans_step = True
    return step


class Optimizer:
    """Base class of all optimizers (``torch.optim.Optimizer``).

    Args:
        params: an iterable of leaf Tensors, or of dicts defining parameter groups.
        defaults: default values of the optimization options (used by groups that do not
            set them).

    Raises ``TypeError`` when ``params`` is a single Tensor or holds a non-Tensor,
    ``ValueError`` for an empty parameter list, a non-leaf Tensor, a parameter in two
    groups, or a group missing a required option.  Subclasses implement ``step``.
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self._step_pre_hooks = OrderedDict()
        self._step_post_hooks = OrderedDict()
        if isinstance(params, _T.Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {_typename(params)}")
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for g in param_groups:
            self.add_param_group(g)

    # every subclass's step runs under no_grad, with the hooks (see __init_subclass__)
    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        st = cls.__dict__.get("step")
        if st is not None and not getattr(st, "_ftrans_step", False):
            cls.step = _no_grad_step(st)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state,
                "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.__dict__.setdefault("_step_pre_hooks", OrderedDict())
        self.__dict__.setdefault("_step_post_hooks", OrderedDict())

    def __repr__(self):
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
    def add_param_group(self, param_group):
        """Add a parameter group (a dict with ``"params"`` and optional options) -- e.g.
        layers unfrozen during fine-tuning."""
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
        seen = set()
        for g in self.param_groups:
            seen.update(id(p) for p in g["params"])
        if any(id(p) in seen for p in plist):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    # ------------------------------------------------------------------------ grads
    def zero_grad(self, set_to_none: bool = True):
        """Reset the gradients of all parameters: to None (default, as PyTorch 2.x) or, with
        ``set_to_none=False``, to zeros in place (detached from any graph)."""
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

    def step(self, closure=None):
        raise NotImplementedError

    # ------------------------------------------------------------------------ hooks
    def register_step_pre_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None or (args, kwargs)`` before each step."""
        return RemovableHandle(self._step_pre_hooks, hook)

    def register_step_post_hook(self, hook):
        """``hook(optimizer, args, kwargs) -> None`` after each step."""
        return RemovableHandle(self._step_post_hooks, hook)

    # ------------------------------------------------------------------------ state dicts
    def state_dict(self):
        """``{"state": {index: per-parameter state}, "param_groups": [options and "params":
        [indices]]}`` -- PyTorch's format.  The state's tensors are referenced, not copied
        (as in PyTorch: save or deep-copy the result to keep a snapshot)."""
        mapping = {}
        start = 0

        def pack(group):
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
    def _cast_state(param, value, key=None):
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

    def load_state_dict(self, state_dict):
        """Load a state dict made by :meth:`state_dict` (here or by PyTorch).  ``ValueError``
        when the number of groups or of parameters per group differs."""
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
        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = {kk: self._cast_state(param, vv, kk) for kk, vv in v.items()}
            else:
                state[k] = copy.deepcopy(v)

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            if "param_names" in group and "param_names" not in new_group:
                new_group["param_names"] = group["param_names"]
            return new_group

        self.__setstate__({"state": state, "param_groups": [
            update_group(g, ng) for g, ng in zip(groups, saved_groups)]})


def _params_with_grad(group):
    """(parameters of ``group`` that have a gradient, their gradients)."""
    ps, gs = [], []
    for p in group["params"]:
        if p.grad is not None:
            ps.append(p)
            gs.append(p.grad)
    return ps, gs


def _written(*tensors):
    """Record an in-place update of the tensors' arrays: bump the version counters, as
    every in-place tensor operation does (autograd then detects stale saved values)."""
    for t in tensors:
        if t is not None:
            t._vc[0] += 1


#: Set to False to run every optimizer on its composition of ``ftrans.numpy`` operations
#: (``ftrans.optim``'s ``fused=False``; tests compare it with the fused one-pass path).
USE_FUSED_KERNELS = True


def _use_fused(group):
    """The fused one-pass updates unless switched off (:data:`USE_FUSED_KERNELS`) or the group asks for
    the composition (``fused=False`` or ``differentiable=True``)."""
    return (USE_FUSED_KERNELS and group.get("fused") is not False
            and not group.get("differentiable"))


def _float(x):
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

    _keys = ()
    _state_type = None

    def _tx(self, group):
        fused = _use_fused(group)
        key = (fused,) + tuple(_float(group[k]) for k in self._keys)
        cache = self.__dict__.setdefault("_tx_cache", {})
        hit = cache.get(id(group))
        if hit is None or hit[0] != key:
            hit = cache[id(group)] = (key, self._transformation(group, fused))
        return hit[1]

    def step(self, closure=None):
        """One update of every parameter that has a gradient; returns ``closure()``'s loss
        (evaluated with grad enabled before the update) or None."""
        loss = _closure_loss(closure)
        for group in self.param_groups:
            batches = {}
            for p, grad in zip(*_params_with_grad(group)):
                count, arrays, step_t, written = self._state(p, group)
                b = batches.get(count)
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


def _step_tensor(dtype=None):
    """The ``step`` state entry: a 0-d tensor of the scalar dtype PyTorch uses (float64
    when the default dtype is float64, else float32)."""
    dt = D.float64 if D.get_default_dtype() == D.float64 else D.float32
    return F.tensor(0.0, dtype=dt)


def _closure_loss(closure):
    if closure is None:
        return None
    with enable_grad():
        return closure()
