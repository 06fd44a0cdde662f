"""``compat.func``'s module helpers: ``functional_call`` and ``stack_module_state``
(``torch.func``'s).  They use only the duck-typed module interface
(``named_parameters()``, ``named_buffers()``, attribute paths ``"a.b.weight"``), so they
work with ``compat.nn.Module`` and any object providing it."""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import _ops as O
from .types import Tensor

__all__ = ["functional_call", "stack_module_state"]

# ``module`` arguments are typed ``Any``: the helpers are duck-typed (any object with
# ``named_parameters()``/``named_buffers()``), and ``compat.nn`` is above this module.


def _named(module: Any, what: str) -> list[tuple[str, Any]]:
    fn = getattr(module, what)
    try:
        return list(fn(remove_duplicate=False))
    except TypeError:
        return list(fn())


def _resolve(module: Any, path: str) -> tuple[Any, str]:
    *mods, leaf = path.split(".")
    m = module
    for p in mods:
        m = getattr(m, p)
    return m, leaf


_MISSING = object()


def _swap(module: Any, path: str, value: Any) -> Any:
    """Set ``module.<path>`` to ``value``; returns the old value (``_MISSING`` if none)."""
    m, name = _resolve(module, path)
    for store in ("_parameters", "_buffers"):
        d = getattr(m, store, None)
        if isinstance(d, dict) and name in d:
            old = d[name]
            d[name] = value
            return old
    old = getattr(m, name, _MISSING)
    if value is _MISSING:
        object.__delattr__(m, name) if name in getattr(m, "__dict__", {}) else delattr(m, name)
    else:
        try:
            setattr(m, name, value)
        except (TypeError, KeyError, AttributeError):
            object.__setattr__(m, name, value)
    return old


def functional_call(module: Any,
                    parameter_and_buffer_dicts: Mapping[str, Any] | Sequence[Mapping[str, Any]],
                    args: Any = None, kwargs: dict[str, Any] | None = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Call a module with its parameters and buffers replaced (``torch.func.functional_call``).

    The originals are restored afterwards, even on error.

    Parameters
    ----------
    module : Module
        A ``compat.nn.Module`` (or any object with ``named_parameters()`` and
        ``named_buffers()``).
    parameter_and_buffer_dicts : dict or sequence of dict
        ``{"a.b.weight": tensor}``, or several such dicts (no key in two of them).
    args : Any, optional
        The positional arguments: a tuple, or one argument.
    kwargs : dict, optional
        The keyword arguments.
    tie_weights : bool, optional
        A tensor given for one of several names sharing one parameter replaces all of
        them.
    strict : bool, optional
        Require exactly the module's parameter and buffer names.

    Returns
    -------
    Any
        What ``module(*args, **kwargs)`` returns.

    Raises
    ------
    RuntimeError
        With ``strict``, listing the missing and unexpected keys.
    ValueError
        For a key given in two dicts, tied names given different tensors, or
        ``parameter_and_buffer_dicts`` not a dict or a sequence of dicts.
    """
    merged: dict[str, Any]
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged.update(d)
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    named = _named(module, "named_parameters") + _named(module, "named_buffers")
    known = [n for n, _ in named]
    if strict:
        missing = [k for k in known if k not in merged]
        unexpected = [k for k in merged if k not in known]
        if missing or unexpected:
            msgs = []
            if unexpected:
                msgs.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                msgs.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(msgs))
    if tie_weights:
        groups: dict[int, list[str]] = {}
        for n, t in named:
            groups.setdefault(id(t), []).append(n)
        for names in groups.values():
            given = [n for n in names if n in merged]
            if given and len(names) > 1:
                vals = {id(merged[n]) for n in given}
                if len(vals) > 1:
                    raise ValueError(f"functional_call got multiple values for keys {given}, "
                                     "which are tied. Consider using tie_weights=False")
                for n in names:
                    merged.setdefault(n, merged[given[0]])
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for k, v in merged.items():
            saved.append((k, _swap(module, k, v)))
        return module(*args, **(kwargs or {}))
    finally:
        for k, old in reversed(saved):
            _swap(module, k, old)


def stack_module_state(models: Iterable[Any]
                       ) -> tuple[dict[str, Tensor], dict[str, Tensor]]:
    """Stack the parameters and buffers of models (``torch.func.stack_module_state``).

    For ensembling with ``vmap(functional_call ...)``.

    Parameters
    ----------
    models : iterable of Module
        Instances of one class, all in training or all in eval mode.

    Returns
    -------
    tuple of (dict, dict)
        ``(params, buffers)``: each parameter (buffer) name mapped to the stack of the
        models' tensors along a new dimension 0.  Stacked parameters are new leaves
        requiring grad (when the models' do).

    Raises
    ------
    RuntimeError
        For no models, mixed classes or mixed training modes.
    """
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)) \
            if all(hasattr(m, "training") for m in models) else False:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stack(what: str, leaf: bool) -> dict[str, Tensor]:
        out = {}
        for name, _ in getattr(models[0], what)():
            ts = [dict(getattr(m, what)())[name] for m in models]
            s = O.stack([t.detach() for t in ts], 0)
            if leaf and all(t.requires_grad for t in ts):
                s.requires_grad_(True)
            out[name] = s
        return out
    return stack("named_parameters", True), stack("named_buffers", False)
