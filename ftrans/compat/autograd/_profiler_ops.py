"""The operation table of the compat profiler (:mod:`ftrans.compat.autograd.profiler`): which
code objects are compat operations and the ATen name PyTorch gives each (``aten::mul`` for
``x * 2``, ``torch.mul`` and ``x.mul``), built on the first profile."""
from __future__ import annotations

import inspect
import types
from typing import Any

from . import _engine, function

__all__: list[str] = []


# ====================================================================== operation table
# Names PyTorch gives the ATen operator of an alias (compat binds the alias to the same
# function object, so the canonical name is the one recorded).
_ALIASES = {
    "absolute": "abs", "negative": "neg", "arcsin": "asin", "arccos": "acos",
    "arctan": "atan", "arctan2": "atan2", "multiply": "mul", "divide": "div",
    "true_divide": "div", "subtract": "sub", "clip": "clamp", "swapaxes": "transpose",
    "swapdims": "transpose", "moveaxis": "movedim", "concat": "cat", "concatenate": "cat",
    "ger": "outer", "greater": "gt", "less": "lt", "greater_equal": "ge",
    "less_equal": "le", "not_equal": "ne",
    "multiply_": "mul_", "divide_": "div_", "subtract_": "sub_", "clip_": "clamp_",
    "float": "to", "double": "to", "half": "to", "long": "to", "int": "to", "short": "to",
    "bool": "to", "byte": "to", "cfloat": "to", "cdouble": "to", "tensor": "lift_fresh",
}
# operators of Tensor and the operator they run (None: named by the index, see _index_name)
_DUNDERS = {
    "__add__": "add", "__radd__": "add", "__sub__": "sub", "__rsub__": "rsub",
    "__mul__": "mul", "__rmul__": "mul", "__truediv__": "div", "__rtruediv__": "div",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide",
    "__mod__": "remainder", "__rmod__": "remainder", "__pow__": "pow", "__rpow__": "pow",
    "__matmul__": "matmul", "__rmatmul__": "matmul", "__neg__": "neg", "__abs__": "abs",
    "__invert__": "bitwise_not", "__eq__": "eq", "__ne__": "ne", "__lt__": "lt",
    "__le__": "le", "__gt__": "gt", "__ge__": "ge", "__and__": "bitwise_and",
    "__or__": "bitwise_or", "__xor__": "bitwise_xor", "__rand__": "bitwise_and",
    "__ror__": "bitwise_or", "__rxor__": "bitwise_xor", "__getitem__": None,
    "__setitem__": "index_put_", "__iadd__": "add_", "__isub__": "sub_",
    "__imul__": "mul_", "__itruediv__": "div_", "__ipow__": "pow_",
}
# public functions and methods that are not operations (queries, settings, hooks ...)
_NOT_OPS = frozenset({
    "size", "dim", "ndimension", "numel", "nelement", "is_floating_point", "is_complex",
    "element_size", "type", "stride", "is_contiguous", "data_ptr", "is_inference",
    "requires_grad_", "retain_grad", "register_hook", "register_post_accumulate_grad_hook",
    "backward", "numpy", "tolist", "cpu", "cuda", "get_default_dtype", "set_default_dtype",
    "is_anomaly_check_nan_enabled", "is_anomaly_enabled", "set_anomaly_enabled", "is_conj",
    "is_neg", "is_grad_enabled", "is_inference_mode_enabled", "is_tensor", "manual_seed",
    "seed", "initial_seed", "promote_types", "result_type", "set_printoptions",
    "from_numpy", "as_tensor",
})

_STATIC, _SHARED, _INDEX, _NODE, _ACC, _FUNCTION = range(6)
_EVAL = "autograd::engine::evaluate_function: "


class _Entry:
    """How to name a call of one code object: ``kind`` (one of the constants above),
    ``name`` (static), ``free``/``sigs`` (closures sharing the code: the ids of the
    free variables' values -> name), ``args`` (parameter names read for the shapes),
    ``varargs`` (the ``*args`` parameter or None)."""

    __slots__ = ("kind", "name", "free", "sigs", "args", "varargs")

    def __init__(self, kind: int, code: types.CodeType, name: str | None = None) -> None:
        self.kind = kind
        self.name = name
        self.free = code.co_freevars
        self.sigs: dict[tuple[int, ...], str] = {}
        self.args = code.co_varnames[:code.co_argcount]
        self.varargs = (code.co_varnames[code.co_argcount + code.co_kwonlyargcount]
                        if code.co_flags & inspect.CO_VARARGS else None)


_table: list[dict[types.CodeType, _Entry]] = []     # [ {code: _Entry} ], built on the first profile
_tensor_cls: list[type] = []


def _index_name(idx: Any) -> str:
    """The ATen operator PyTorch runs for ``x[idx]``."""
    import numbers
    items = idx if type(idx) is tuple else (idx,)
    kinds = set()
    for i in items:
        if i is None:
            kinds.add("unsqueeze")
        elif i is Ellipsis:
            continue
        elif isinstance(i, numbers.Integral) and not isinstance(i, bool):
            kinds.add("select")
        elif isinstance(i, slice):
            kinds.add("slice")
        else:
            return "index"
    if "slice" in kinds:
        return "slice"
    if kinds == {"unsqueeze"}:
        return "unsqueeze"
    return "select" if "select" in kinds else "alias"


def _sig(fn: types.FunctionType) -> tuple[int, ...]:
    cells = fn.__closure__ or ()
    return tuple(id(c.cell_contents) for c in cells)


def _build_table_of_ops() -> dict[types.CodeType, _Entry]:
    """{code object: _Entry} for the public operations of ``ftrans.compat``, the methods
    and operators of ``Tensor``, ``autograd.Function.apply`` and the engine's node
    runners."""
    from ... import compat  # deferred: the package's namespace, complete only after this module
    T = compat.Tensor
    regs: list[tuple[types.FunctionType, str | None]] = []   # (function, canonical name or
    # None for an index)
    for name in dir(compat):
        if name.startswith("_") or name in _NOT_OPS:
            continue
        obj = getattr(compat, name)
        if isinstance(obj, types.FunctionType):
            regs.append((obj, _ALIASES.get(name, name)))
    for name, obj in vars(T).items():
        if isinstance(obj, (staticmethod, classmethod)):
            obj = obj.__func__
        if not isinstance(obj, types.FunctionType):
            continue
        if name.startswith("_"):
            if name not in _DUNDERS:
                continue
            regs.append((obj, _DUNDERS[name]))
        elif name not in _NOT_OPS:
            regs.append((obj, _ALIASES.get(name, name)))
    groups: dict[tuple[types.CodeType, tuple[int, ...]],
                 list[tuple[types.FunctionType, str | None]]] = {}
    for fn, opname in regs:
        groups.setdefault((fn.__code__, _sig(fn)), []).append((fn, opname))
    table: dict[types.CodeType, _Entry] = {}
    for (code, sig), items in groups.items():
        # identical closures registered under several names: the name the function gives
        # itself, else the first (``empty`` is compat's ``zeros``: recorded as zeros)
        names = sorted((n for _, n in items), key=lambda n: n in ("empty", "empty_like"))
        own = _ALIASES.get(items[0][0].__name__, items[0][0].__name__)
        chosen = own if own in names else names[0]
        kind = _INDEX if chosen is None else (_SHARED if code.co_freevars else _STATIC)
        aten = None if chosen is None else "aten::" + chosen
        e = table.get(code)
        if e is None:
            e = table[code] = _Entry(kind, code, aten)
        if kind == _SHARED and aten is not None:
            e.sigs.setdefault(sig, aten)
    table[_engine._run_node.__code__] = _Entry(_NODE, _engine._run_node.__code__)
    table[_engine._run_acc.__code__] = _Entry(_ACC, _engine._run_acc.__code__)
    apply = vars(function.Function)["apply"].__func__.__code__
    table[apply] = _Entry(_FUNCTION, apply)
    _tensor_cls.append(T)
    return table


def _op_table() -> dict[types.CodeType, _Entry]:
    if not _table:
        _table.append(_build_table_of_ops())
    return _table[0]


def _shape(v: Any, T: Any) -> list[int]:
    if isinstance(v, T):
        return list(v._data.shape)
    s = getattr(v, "shape", None)
    if type(s) is tuple and hasattr(v, "dtype"):  # a NumPy array (backward gradients)
        return list(s)
    return []
