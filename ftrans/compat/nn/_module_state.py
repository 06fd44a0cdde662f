"""``state_dict`` and ``load_state_dict`` of :class:`~ftrans.compat.nn.Module`
(``torch.nn.Module``'s), with their hooks, gathered in the base class :class:`_StateDictMixin`."""
from __future__ import annotations

import itertools
from collections import OrderedDict, namedtuple
from collections.abc import Callable, Mapping
from typing import Any

import ftrans.compat as torch
from ftrans.compat import Tensor
from .parameter import Parameter

from ._module_hooks import RemovableHandle

__all__ = []


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class _StateDictMixin:
    """The state-dict methods of :class:`~ftrans.compat.nn.Module` (a base class of it)."""

    # set by Module.__init__
    _parameters: dict[str, Any]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Any]
    _state_dict_hooks: dict[int, Callable[..., Any]]
    _load_state_dict_pre_hooks: dict[int, Callable[..., Any]]

    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str,
                            keep_vars: bool) -> None:
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()

    def state_dict(self, *args: Any, destination: dict[str, Any] | None = None, prefix: str = "",
                   keep_vars: bool = False) -> dict[str, Any]:
        """The parameters and persistent buffers by dotted name (``torch.nn.Module.state_dict``).

        Parameters
        ----------
        *args : Any
            The deprecated positional form ``(destination, prefix, keep_vars)``.
        destination : dict, optional
            Fill this dict instead of a new ``OrderedDict``.
        prefix : str, optional
            Prepended to every key.
        keep_vars : bool, optional
            Keep the tensors themselves (default: detached tensors sharing storage).

        Returns
        -------
        dict of str to Tensor
            An ordered dict, keys such as ``"0.weight"`` or ``"bn.running_mean"``.
        """
        if args:
            destination = args[0] if len(args) > 0 else destination
            prefix = args[1] if len(args) > 1 else prefix
            keep_vars = args[2] if len(args) > 2 else keep_vars
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".",
                             keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            r = hook(self, destination, prefix, {})
            if r is not None:
                destination = r
        return destination

    def _load_from_state_dict(self, state_dict: dict[str, Any], prefix: str,
                              local_metadata: dict[str, Any], strict: bool, missing_keys: list[str],
                              unexpected_keys: list[str], error_msgs: list[str]) -> None:
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)
        persistent = {k: v for k, v in self._buffers.items()
                      if k not in self._non_persistent_buffers_set}
        local = {k: v for k, v in itertools.chain(self._parameters.items(), persistent.items())
                 if v is not None}
        for name, param in local.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            ip = state_dict[key]
            if not isinstance(ip, Tensor):
                if hasattr(ip, "shape") and hasattr(ip, "dtype"):   # a NumPy array
                    ip = torch.as_tensor(ip)
                else:
                    error_msgs.append(f'While copying the parameter named "{key}", expected '
                                      f"torch.Tensor or Tensor-like object from checkpoint but "
                                      f"received {type(ip)}")
                    continue
            if tuple(ip.shape) != tuple(param.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape "
                                  f"{ip.shape} from checkpoint, the shape in current model "
                                  f"is {param.shape}.")
                continue
            if local_metadata.get("assign_to_params_buffers", False):
                if isinstance(param, Parameter):
                    if not isinstance(ip, Parameter):
                        ip = Parameter(ip, requires_grad=param.requires_grad)
                    else:
                        ip.requires_grad_(param.requires_grad)
                setattr(self, name, ip)
                continue
            try:
                with torch.no_grad():
                    param.copy_(ip)
            except Exception as ex:  # noqa: BLE001  (reported like PyTorch, then raised)
                error_msgs.append(f'While copying the parameter named "{key}", whose '
                                  f"dimensions in the model are {param.shape} and whose "
                                  f"dimensions in the checkpoint are {ip.shape}, an exception "
                                  f"occurred : {ex.args}.")
        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix):
                    input_name = key[len(prefix):].split(".", 1)
                    if len(input_name) > 1:
                        if input_name[0] not in self._modules:
                            unexpected_keys.append(key)
                    elif input_name[0] not in local:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict: Mapping[str, Any], strict: bool = True,
                        assign: bool = False) -> _IncompatibleKeys:
        """Copy parameters and buffers from ``state_dict`` (``torch.nn.Module.load_state_dict``).

        Values are copied in place, converted to each parameter's dtype.

        Parameters
        ----------
        state_dict : dict of str to Tensor
            As :meth:`state_dict` returns.
        strict : bool, optional
            Missing and unexpected keys are errors (default True).
        assign : bool, optional
            Put the given tensors in place of the module's instead of copying (keeping each
            parameter's ``requires_grad``).

        Returns
        -------
        _IncompatibleKeys
            The named tuple ``(missing_keys, unexpected_keys)``.

        Raises
        ------
        TypeError
            If ``state_dict`` is not a dict.
        RuntimeError
            Listing missing/unexpected keys (``strict=True``) and size mismatches, with
            PyTorch's messages.
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []
        state_dict = OrderedDict(state_dict)

        def load(module: Any, prefix: str = "") -> None:
            meta = {"assign_to_params_buffers": True} if assign else {}
            module._load_from_state_dict(state_dict, prefix, meta, True, missing, unexpected,
                                         errors)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")
        load(self)
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected)))
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(errors)))
        return _IncompatibleKeys(missing, unexpected)

    def register_state_dict_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Not supported yet by ftrans.compat (``torch.nn.Module.register_state_dict_pre_hook``).

        Parameters
        ----------
        hook : callable
            Unused.

        Returns
        -------
        RemovableHandle
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("register_state_dict_pre_hook is not supported by "
                                  "ftrans.compat yet")

    def _register_state_dict_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        h = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[h.id] = hook
        return h

    def _register_load_state_dict_pre_hook(self, hook: Callable[..., Any],
                                           with_module: bool = False) -> RemovableHandle:
        h = RemovableHandle(self._load_state_dict_pre_hooks)
        if with_module:
            def wrapped(*args: Any, _h: Callable[..., Any] = hook) -> Any:
                return _h(self, *args)
            self._load_state_dict_pre_hooks[h.id] = wrapped
        else:
            self._load_state_dict_pre_hooks[h.id] = hook
        return h
