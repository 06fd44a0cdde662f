"""``Module``: PyTorch's ``torch.nn.Module`` on compat Tensors.

Parameters, buffers and submodules live in the ordered dicts ``_parameters``,
``_buffers`` and ``_modules``; attribute assignment routes values into them and
attribute lookup falls back to them, exactly as ``torch.nn.Module.__setattr__``/
``__getattr__``/``__delattr__`` do.  ``state_dict`` keys are the dotted attribute paths
(``"0.weight"``, ``"bn.running_mean"``); ``load_state_dict`` copies values in place
under ``no_grad`` and returns PyTorch's ``_IncompatibleKeys(missing_keys,
unexpected_keys)``.  Calling a module runs the forward pre-hooks, ``forward``, the
forward hooks and, when ``register_full_backward_hook`` was used, wraps inputs and
outputs in identity ``autograd.Function``s so the hooks see the gradients with respect
to the module's inputs and outputs (PyTorch's ``BackwardHook``).

The hook methods are in ``_module_hooks.py``, the state-dict methods in
``_module_state.py`` and the dtype/device conversions in ``_module_convert.py``, each a
base class of :class:`Module`.
"""
from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Self, cast

from ..types import Tensor
from .parameter import Parameter, Buffer, typename
from ._module_hooks import (  # noqa: F401  (nn.module's names)
    RemovableHandle, _HookDict, _HookMixin, register_module_forward_hook,
    register_module_forward_pre_hook,
)
from ._module_state import _StateDictMixin
from ._module_convert import _ConvertMixin

__all__ = ["Module", "RemovableHandle", "register_module_forward_pre_hook",
           "register_module_forward_hook"]


def _addindent(s: str, n: int) -> str:
    lines = s.split("\n")
    if len(lines) == 1:
        return s
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * n + line for line in lines)


class Module(_StateDictMixin, _HookMixin, _ConvertMixin):
    """Base class of all neural-network modules (``torch.nn.Module``).

    Subclasses call ``super().__init__()`` first, assign Parameters, buffers and
    submodules as attributes and define ``forward``; calling the module runs the
    forward pre-hooks, ``forward`` and the forward hooks.

    Parameters
    ----------
    *args, **kwargs : Any
        None accepted (torch's signature): any argument raises TypeError.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> class Net(torch.nn.Module):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.fc = torch.nn.Linear(3, 2)
    ...     def forward(self, x):
    ...         return self.fc(x).relu()
    >>> list(Net().state_dict())
    ['fc.weight', 'fc.bias']
    """

    training: bool
    _version = 1
    call_super_init = False
    dump_patches = False

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected argument "
                            f"{next(iter(kwargs)) if kwargs else args[0]!r}")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_pre_hooks"] = _HookDict()
        d["_forward_pre_hooks_with_kwargs"] = {}
        d["_forward_hooks"] = _HookDict()
        d["_forward_hooks_with_kwargs"] = {}
        d["_forward_hooks_always_called"] = {}
        d["_backward_hooks"] = _HookDict()
        d["_state_dict_hooks"] = _HookDict()
        d["_load_state_dict_pre_hooks"] = _HookDict()
        d["_is_full_backward_hook"] = None

    def forward(self, *input: Any) -> Any:
        """The computation of the module; subclasses define it.

        Parameters
        ----------
        *input : Any
            The call's arguments.

        Returns
        -------
        Any
            The module's output.

        Raises
        ------
        NotImplementedError
            When the subclass does not define ``forward``.
        """
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # ------------------------------------------------------------------ registration
    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (running statistics ...).

        Parameters
        ----------
        name : str
            Attribute name (no ``.``, not empty).
        tensor : Tensor or None
            The buffer's value.
        persistent : bool, optional
            Include it in ``state_dict`` (default True).

        Raises
        ------
        KeyError
            For a bad or already used name.
        TypeError
            If ``tensor`` is neither a Tensor nor None.
        """
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"buffer name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('buffer name can\'t contain "."')
        if name == "":
            raise KeyError('buffer name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f"cannot assign '{typename(tensor)}' object to buffer '{name}' "
                            "(torch Tensor or None required)")
        if isinstance(tensor, Buffer):
            persistent = getattr(tensor, "persistent", persistent)
            tensor = tensor.detach()
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a Parameter (or None) under ``name``.

        Parameters
        ----------
        name : str
            Attribute name (no ``.``, not empty).
        param : Parameter or None
            A leaf Parameter.

        Raises
        ------
        KeyError
            For a bad or already used name.
        TypeError
            If ``param`` is not a Parameter.
        ValueError
            If ``param`` is not a leaf.
        """
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"parameter name should be a string. Got {typename(name)}")
        if "." in name:
            raise KeyError('parameter name can\'t contain "."')
        if name == "":
            raise KeyError('parameter name can\'t be empty string ""')
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not isinstance(param, Parameter):
            raise TypeError(f"cannot assign '{typename(param)}' object to parameter '{name}' "
                            "(torch.nn.Parameter or None required)")
        if param.grad_fn is not None:
            raise ValueError(f"Cannot assign non-leaf Tensor to parameter '{name}'. Model "
                             f"parameters must be created explicitly. To express '{name}' as "
                             "a function of another Tensor, compute the value in the forward() "
                             "method.")
        self._parameters[name] = param

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a child module (or None) under ``name``.

        Parameters
        ----------
        name : str
            Attribute name (no ``.``, not empty).
        module : Module or None
            The child.

        Raises
        ------
        TypeError
            If ``module`` is not a Module.
        KeyError
            For a bad or already used name.
        """
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{typename(module)} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {typename(name)}")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``''``: ``self``).

        Parameters
        ----------
        target : str
            Dotted path from this module, e.g. ``"net.0.weight"``.

        Returns
        -------
        Module
            The submodule.

        Raises
        ------
        AttributeError
            If the path does not lead to a Module.
        """
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
        return mod

    def get_parameter(self, target: str) -> Parameter:
        """The parameter at the dotted path ``target``.

        Parameters
        ----------
        target : str
            Dotted path from this module, e.g. ``"net.0.weight"``.

        Returns
        -------
        Parameter
            The parameter.

        Raises
        ------
        AttributeError
            If the path does not lead to a Parameter.
        """
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        p = getattr(mod, name)
        if not isinstance(p, Parameter):
            raise AttributeError(f"`{name}` is not an nn.Parameter")
        return p

    def get_buffer(self, target: str) -> Tensor | None:
        """The buffer at the dotted path ``target``.

        Parameters
        ----------
        target : str
            Dotted path from this module, e.g. ``"net.0.weight"``.

        Returns
        -------
        Tensor or None
            The buffer (None where one was registered as None).

        Raises
        ------
        AttributeError
            If the path does not lead to a buffer.
        """
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._buffers:
            raise AttributeError(f"`{name}` is not a buffer")
        return mod._buffers[name]

    # ------------------------------------------------------------------ attributes
    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if "_parameters" in d:
            p = d["_parameters"]
            if name in p:
                return p[name]
        if "_buffers" in d:
            b = d["_buffers"]
            if name in b:
                return b[name]
        if "_modules" in d:
            m = d["_modules"]
            if name in m:
                return m[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        def remove_from(*dicts_or_sets: dict[str, Any] | set[str]) -> None:
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        d = self.__dict__
        params = d.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(f"cannot assign '{typename(value)}' as parameter '{name}' "
                                "(torch.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(f"cannot assign '{typename(value)}' as child module "
                                    f"'{name}' (torch.nn.Module or None expected)")
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                if isinstance(value, Buffer) or (buffers is not None and name in buffers):
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(f"cannot assign '{typename(value)}' as buffer "
                                        f"'{name}' (torch.nn.Buffer, torch.Tensor or None "
                                        "expected)")
                    if isinstance(value, Buffer):
                        persistent = value.persistent
                        remove_from(d)
                        self.register_buffer(name, value, persistent)
                    else:   # (name in buffers: buffers is a dict)
                        cast(dict[str, Any], buffers)[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(object.__dir__(self))
        keys += list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def __getstate__(self) -> dict[str, Any]:
        return dict(self.__dict__)

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ iteration
    def _named_members(self, get_members_fn: Callable[[Module], Iterable[tuple[str, Any]]],
                       prefix: str = "", recurse: bool = True,
                       remove_duplicate: bool = True) -> Iterator[tuple[str, Any]]:
        memo = set()
        modules = (self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate)
                   if recurse else [(prefix, self)])
        for module_prefix, module in modules:
            for k, v in get_members_fn(module):
                if v is None or v in memo:
                    continue
                if remove_duplicate:
                    memo.add(v)
                yield (module_prefix + ("." if module_prefix else "") + k, v)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Iterate over the parameters, each once, in registration order.

        Parameters
        ----------
        recurse : bool, optional
            Include the submodules' members (default True); else only this module's.

        Returns
        -------
        Iterator of Parameter
            The parameters.
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_parameters(self, prefix: str = "", recurse: bool = True,
                         remove_duplicate: bool = True) -> Iterator[tuple[str, Parameter]]:
        """Iterate over ``(dotted name, parameter)`` pairs.

        Parameters
        ----------
        prefix : str, optional
            Prepended to every name.
        recurse : bool, optional
            Include the submodules' members (default True); else only this module's.
        remove_duplicate : bool, optional
            Yield a shared member once (default True).

        Returns
        -------
        Iterator of (str, Parameter)
            Names such as ``"fc.weight"`` with their parameters.
        """
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse,
                                       remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Iterate over the buffers, each once.

        Parameters
        ----------
        recurse : bool, optional
            Include the submodules' members (default True); else only this module's.

        Returns
        -------
        Iterator of Tensor
            The buffers.
        """
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def named_buffers(self, prefix: str = "", recurse: bool = True,
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Tensor]]:
        """Iterate over ``(dotted name, buffer)`` pairs.

        Parameters
        ----------
        prefix : str, optional
            Prepended to every name.
        recurse : bool, optional
            Include the submodules' members (default True); else only this module's.
        remove_duplicate : bool, optional
            Yield a shared member once (default True).

        Returns
        -------
        Iterator of (str, Tensor)
            Names such as ``"bn.running_mean"`` with their buffers.
        """
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse,
                                       remove_duplicate)

    def children(self) -> Iterator[Module]:
        """Iterate over the direct submodules, each once.

        Returns
        -------
        Iterator of Module
            The children.
        """
        for _, m in self.named_children():
            yield m

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """Iterate over ``(name, child)`` pairs of the direct submodules, each once.

        Returns
        -------
        Iterator of (str, Module)
            The children with their attribute names.
        """
        memo = set()
        for name, m in self._modules.items():
            if m is not None and m not in memo:
                memo.add(m)
                yield name, m

    def modules(self) -> Iterator[Module]:
        """Iterate over this module and all submodules, each once (this module first).

        Returns
        -------
        Iterator of Module
            The modules, depth first.
        """
        for _, m in self.named_modules():
            yield m

    def named_modules(self, memo: set[Module] | None = None, prefix: str = "",
                      remove_duplicate: bool = True) -> Iterator[tuple[str, Module]]:
        """Iterate over ``(dotted name, module)`` pairs, this module first (``''``).

        Parameters
        ----------
        memo : set of Module, optional
            Modules already yielded (skipped).
        prefix : str, optional
            Prepended to every name.
        remove_duplicate : bool, optional
            Yield a shared member once (default True).

        Returns
        -------
        Iterator of (str, Module)
            The modules, depth first.
        """
        if memo is None:
            memo = set()
        if self in memo:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    __hash__ = object.__hash__

    # ------------------------------------------------------------------ modes
    def train(self, mode: bool = True) -> Self:
        """Set training mode (``True``) or evaluation mode on this module and all submodules.

        Parameters
        ----------
        mode : bool, optional
            True for training (default), False for evaluation.

        Returns
        -------
        Module
            ``self``.

        Raises
        ------
        ValueError
            For a non-bool ``mode``.
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self) -> Self:
        """Set evaluation mode: ``train(False)``.

        Dropout becomes the identity, BatchNorm uses its running statistics.  It does
        not disable gradient recording: use ``no_grad``.

        Returns
        -------
        Module
            ``self``.
        """
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Self:
        """Set ``requires_grad`` of every parameter (freeze with ``False``).

        Parameters
        ----------
        requires_grad : bool, optional
            The new flag (default True).

        Returns
        -------
        Module
            ``self``.
        """
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters.

        Parameters
        ----------
        set_to_none : bool, optional
            Set them to None (default) instead of zeroing them in place.
        """
        for p in self.parameters():
            if p.grad is not None:
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad
                    if g.grad_fn is not None:
                        g.detach_()
                    else:
                        g.requires_grad_(False)
                    g.zero_()

    # ------------------------------------------------------------------ conversion
    def apply(self, fn: Callable[[Module], None]) -> Self:
        """Call ``fn`` on every submodule (children first) and then on ``self``.

        Parameters
        ----------
        fn : callable
            ``fn(module)``, e.g. a weight initializer.

        Returns
        -------
        Module
            ``self``.
        """
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ------------------------------------------------------------------ repr
    def extra_repr(self) -> str:
        """The module's settings shown in its ``repr``; subclasses override it.

        Returns
        -------
        str
            ``''`` here.
        """
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
