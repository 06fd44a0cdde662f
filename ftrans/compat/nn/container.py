"""Containers: ``Sequential``, ``ModuleList``, ``ModuleDict``, ``ParameterList``,
``ParameterDict`` (``torch.nn.modules.container``)."""
from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from itertools import chain
from typing import Any, Self, SupportsIndex, cast

from ftrans.compat import Tensor
from .module import Module, _addindent
from .parameter import Parameter, typename

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


def _abs_index(idx: SupportsIndex, n: int, what: str) -> int:
    idx = operator.index(idx)
    if not -n <= idx < n:
        raise IndexError(f"index {idx} is out of range")
    return idx % n


class Sequential(Module):
    """Modules applied in order (``torch.nn.Sequential``).

    Parameters
    ----------
    *args : Module or OrderedDict
        The modules (registered as ``"0"``, ``"1"`` ...), or one ``OrderedDict`` of
        named modules.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> net = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU())
    >>> net(torch.zeros(2, 4)).shape
    torch.Size([2, 3])
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        keys = list(self._modules)
        return self._modules[keys[_abs_index(idx, len(keys), "Sequential")]]

    def __setitem__(self, idx: int, module: Module) -> None:
        keys = list(self._modules)
        setattr(self, keys[_abs_index(idx, len(keys), "Sequential")], module)

    def __delitem__(self, idx: int | slice) -> None:
        keys = list(self._modules)
        if isinstance(idx, slice):
            for k in keys[idx]:
                delattr(self, k)
        else:
            delattr(self, keys[_abs_index(idx, len(keys), "Sequential")])
        # renumber, as PyTorch does
        mods = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __add__(self, other: Sequential) -> Sequential:
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        ret = Sequential()
        for m in chain(self, other):
            ret.append(m)
        return ret

    def append(self, module: Module) -> Self:
        """Add ``module`` at the end.

        Parameters
        ----------
        module : Module
            The module.

        Returns
        -------
        Sequential
            ``self``.
        """
        self.add_module(str(len(self)), module)
        return self

    def insert(self, index: int, module: Module) -> Self:
        """Insert ``module`` before position ``index`` (the modules are renumbered).

        Parameters
        ----------
        index : int
            Position, negative counts from the end.
        module : Module
            The module.

        Returns
        -------
        Sequential
            ``self``.

        Raises
        ------
        AssertionError
            If ``module`` is not a Module.
        IndexError
            If ``index`` is out of range.
        """
        if not isinstance(module, Module):
            raise AssertionError(f"module should be of type: {Module}")
        n = len(self._modules)
        if not (-n <= index <= n):
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m
        return self

    def extend(self, sequential: Iterable[Module]) -> Self:
        """Append each module of ``sequential``.

        Parameters
        ----------
        sequential : iterable of Module
            The modules.

        Returns
        -------
        Sequential
            ``self``.
        """
        for layer in sequential:
            self.append(layer)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module(s) at ``key``.

        Parameters
        ----------
        key : int or slice
            Position(s).

        Returns
        -------
        Module or Sequential
            The removed module (a Sequential for a slice).
        """
        v = self[key]
        del self[key]
        return v

    def forward(self, input: Any) -> Any:
        """Pass ``input`` through each module in turn.

        Parameters
        ----------
        input : Any
            The first module's input (usually a Tensor).

        Returns
        -------
        Any
            The last module's output.
        """
        for module in self:
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered as ``"0"``, ``"1"`` ... (``torch.nn.ModuleList``).

    Its repr groups repeated identical modules (``(0-2): 3 x Linear(...)``) as PyTorch
    2.x does.

    Parameters
    ----------
    modules : iterable of Module, optional
        The initial modules.
    """

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[str(_abs_index(idx, len(self), "ModuleList"))]

    def __setitem__(self, idx: int, module: Module) -> None:
        setattr(self, str(_abs_index(idx, len(self), "ModuleList")), module)

    def __delitem__(self, idx: int | slice) -> None:
        if isinstance(idx, slice):
            for k in range(len(self._modules))[idx]:
                delattr(self, str(k))
        else:
            delattr(self, str(_abs_index(idx, len(self), "ModuleList")))
        mods = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def __iadd__(self, modules: Iterable[Module]) -> Self:
        return self.extend(modules)

    def __add__(self, other: Iterable[Module]) -> ModuleList:
        ret = ModuleList()
        for m in chain(self, other):
            ret.append(m)
        return ret

    def insert(self, index: int, module: Module) -> None:
        """Insert ``module`` before position ``index`` (the modules are renumbered).

        Parameters
        ----------
        index : int
            Position, as ``list.insert``'s.
        module : Module
            The module.
        """
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def append(self, module: Module) -> Self:
        """Add ``module`` at the end.

        Parameters
        ----------
        module : Module
            The module.

        Returns
        -------
        ModuleList
            ``self``.
        """
        self.add_module(str(len(self)), module)
        return self

    def pop(self, key: int | slice) -> Any:
        """Remove and return the module(s) at ``key``.

        Parameters
        ----------
        key : int or slice
            Position(s).

        Returns
        -------
        Module or ModuleList
            The removed module (a ModuleList for a slice).
        """
        v = self[key]
        del self[key]
        return v

    def extend(self, modules: Iterable[Module]) -> Self:
        """Append each module of ``modules``.

        Parameters
        ----------
        modules : iterable of Module
            The modules.

        Returns
        -------
        ModuleList
            ``self``.

        Raises
        ------
        TypeError
            If ``modules`` is not iterable (or is a Tensor or str).
        """
        if isinstance(modules, (Tensor, str)) or not hasattr(modules, "__iter__"):
            raise TypeError("ModuleList.extend should be called with an iterable, but got "
                            + type(modules).__name__)
        offset = len(self)
        for i, module in enumerate(modules):
            self.add_module(str(offset + i), module)
        return self

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Not a layer: a ModuleList is not called.

        Parameters
        ----------
        *args, **kwargs : Any
            Unused.

        Returns
        -------
        Any
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("ModuleList is a container, not a layer: iterate over it "
                                  "and call its modules")

    def __repr__(self) -> str:
        list_of_reprs = [repr(item) for item in self]
        if len(list_of_reprs) == 0:
            return self._get_name() + "()"
        start_end_indices = [[0, 0]]
        repeated_blocks = [list_of_reprs[0]]
        for i, r in enumerate(list_of_reprs[1:], 1):
            if r == repeated_blocks[-1]:
                start_end_indices[-1][1] += 1
                continue
            start_end_indices.append([i, i])
            repeated_blocks.append(r)
        lines = []
        main_str = self._get_name() + "("
        for (start_id, end_id), b in zip(start_end_indices, repeated_blocks):
            local_repr = f"({start_id}): {b}"
            if start_id != end_id:
                n = end_id - start_id + 1
                local_repr = f"({start_id}-{end_id}): {n} x {b}"
            lines.append(_addindent(local_repr, 2))
        main_str += "\n  " + "\n  ".join(lines) + "\n"
        return main_str + ")"


class ModuleDict(Module):
    """An ordered dict of modules (``torch.nn.ModuleDict``).

    Parameters
    ----------
    modules : mapping or iterable of (str, Module), optional
        The initial modules.
    """

    def __init__(self,
                 modules: Mapping[str, Module] | Iterable[tuple[str, Module]] | None = None
                 ) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def clear(self) -> None:
        """Remove all modules.
        """
        self._modules.clear()

    def pop(self, key: str) -> Module:
        """Remove and return the module under ``key``.

        Parameters
        ----------
        key : str
            The name.

        Returns
        -------
        Module
            The removed module.
        """
        v = self[key]
        del self[key]
        return v

    def keys(self) -> Iterable[str]:
        """The names.

        Returns
        -------
        KeysView of str
            The names in order.
        """
        return self._modules.keys()

    def items(self) -> Iterable[tuple[str, Module]]:
        """The ``(name, module)`` pairs.

        Returns
        -------
        ItemsView of (str, Module)
            The pairs in order.
        """
        return self._modules.items()

    def values(self) -> Iterable[Module]:
        """The modules.

        Returns
        -------
        ValuesView of Module
            The modules in order.
        """
        return self._modules.values()

    def update(self, modules: Mapping[str, Module] | Iterable[tuple[str, Module]]) -> None:
        """Add or replace modules.

        Parameters
        ----------
        modules : mapping or iterable of (str, Module)
            The modules by name.

        Raises
        ------
        ValueError
            If an element of a sequence is not a pair.
        """
        if isinstance(modules, (OrderedDict, ModuleDict, dict)):
            for key, module in modules.items():
                self[key] = module
        else:
            for j, m in enumerate(cast(Iterable[tuple[str, Module]], modules)):
                if len(m) != 2:
                    raise ValueError(f"ModuleDict update sequence element #{j} has length "
                                     f"{len(m)}; 2 is required")
                self[m[0]] = m[1]

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Not a layer: a ModuleDict is not called.

        Parameters
        ----------
        *args, **kwargs : Any
            Unused.

        Returns
        -------
        Any
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("ModuleDict is a container, not a layer")


def _as_param(value: Any) -> Any:
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """A list of parameters, registered as ``"0"``, ``"1"`` ... (``torch.nn.ParameterList``).

    Parameters
    ----------
    values : iterable, optional
        The initial values; Tensors are wrapped in ``Parameter``.
    """

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(_abs_index(idx, len(self), "ParameterList")))

    def __setitem__(self, idx: int, param: Any) -> None:
        idx = _abs_index(idx, len(self), "ParameterList")
        setattr(self, str(idx), _as_param(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> Self:
        return self.extend(parameters)

    def append(self, value: Any) -> Self:
        """Add ``value`` at the end (a Tensor is wrapped in ``Parameter``).

        Parameters
        ----------
        value : Any
            A Parameter, a Tensor or another object.

        Returns
        -------
        ParameterList
            ``self``.
        """
        new_idx = len(self)
        self._size += 1
        setattr(self, str(new_idx), _as_param(value))
        return self

    def extend(self, values: Iterable[Any]) -> Self:
        """Append each of ``values``.

        Parameters
        ----------
        values : iterable
            The values.

        Returns
        -------
        ParameterList
            ``self``.
        """
        for v in values:
            self.append(v)
        return self

    def extra_repr(self) -> str:
        """One line per entry for ``repr``: its kind, dtype and size.

        Returns
        -------
        str
            The lines.
        """
        lines = []
        for k, p in enumerate(self):
            if isinstance(p, Tensor):
                size = "x".join(str(s) for s in p.size())
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{p.dtype} of size {size}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Not a layer: a ParameterList is not called.

        Parameters
        ----------
        *args, **kwargs : Any
            Unused.

        Returns
        -------
        Any
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("ParameterList is a container, not a layer")


class ParameterDict(Module):
    """An ordered dict of parameters (``torch.nn.ParameterDict``).

    Parameters
    ----------
    parameters : mapping or iterable of (str, Any), optional
        The initial values; Tensors are wrapped in ``Parameter``.
    """

    def __init__(self,
                 parameters: Mapping[str, Any] | Iterable[tuple[str, Any]] | None = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key: str) -> Any:
        return getattr(self, key)

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, key, _as_param(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, key)

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def keys(self) -> Iterable[str]:
        """The names.

        Returns
        -------
        KeysView of str
            The names in order.
        """
        return self._keys.keys()

    def items(self) -> Iterator[tuple[str, Any]]:
        """The ``(name, parameter)`` pairs.

        Returns
        -------
        Iterator of (str, Parameter)
            The pairs in order.
        """
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        """The parameters.

        Returns
        -------
        Iterator of Parameter
            The parameters in order.
        """
        return (self[k] for k in self._keys)

    def get(self, key: str, default: Any = None) -> Any:
        """The entry under ``key``, or ``default``.

        Parameters
        ----------
        key : str
            The name.
        default : Any, optional
            Returned when ``key`` is absent.

        Returns
        -------
        Any
            The entry or ``default``.
        """
        return self[key] if key in self else default

    def pop(self, key: str) -> Any:
        """Remove and return the entry under ``key``.

        Parameters
        ----------
        key : str
            The name.

        Returns
        -------
        Any
            The removed entry.
        """
        v = self[key]
        del self[key]
        return v

    def clear(self) -> None:
        """Remove all entries.
        """
        for k in list(self._keys):
            del self[k]

    def update(self, parameters: Mapping[str, Any] | Iterable[tuple[str, Any]]) -> None:
        """Add or replace entries.

        Parameters
        ----------
        parameters : mapping or iterable of (str, Any)
            The values by name.
        """
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in items:
            self[k] = v

    def extra_repr(self) -> str:
        """One line per entry for ``repr``: its kind, dtype and size.

        Returns
        -------
        str
            The lines.
        """
        lines = []
        for k, p in self.items():
            if isinstance(p, Tensor):
                size = "x".join(str(s) for s in p.size())
                kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
                lines.append(f"  ({k}): {kind} containing: [{typename(p)} of size {size}]")
            else:
                lines.append(f"  ({k}): Object of type: {type(p).__name__}")
        return "\n".join(lines)

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        """Not a layer: a ParameterDict is not called.

        Parameters
        ----------
        *args, **kwargs : Any
            Unused.

        Returns
        -------
        Any
            Never returns.

        Raises
        ------
        NotImplementedError
            Always.
        """
        raise NotImplementedError("ParameterDict is a container, not a layer")


