"""The public API's inventory, and the check that every public name is annotated and
documented in NumPy's docstring style.

Usage (from the repository root)::

    python tools/apicheck.py                 # counts per namespace
    python tools/apicheck.py -v              # and every violation
    python tools/apicheck.py --module ftrans.numpy -v
    python tools/apicheck.py --check         # exit 1 on any violation (tests/test_api_docs.py)

**The public API** is every name in the ``__all__`` of the modules in
:data:`PUBLIC_MODULES` (or their public attributes where a module has no ``__all__``),
and every public method and property of the public classes among them (``Tensor``,
``nn.Module`` and its layers, the optimizers ...), each counted once however many
modules re-export it.  Constants (dtypes, ``pi``) and objects another library defines that a
namespace re-exports as they are (NumPy's ``LinAlgError``) are listed but not checked.

**Annotated** means every parameter (``self``/``cls`` and a method's bound first
parameter aside) and the return value carry an annotation, read at run time with
:func:`inspect.signature` (a class: its ``__init__``'s parameters; a property: its
getter's return).  mypy checks, separately, that the annotations are consistent
(``pyproject.toml``, ``tests/test_typing.py``).

**Documented** means numpydoc's validation (:func:`numpydoc.validate.validate`) reports
none of the errors in :data:`RULES` for the docstring; the names in
:data:`EXAMPLES_REQUIRED` must also show a ``>>>`` example (numpydoc's EX01), and the
doctests run (``tests/docs/test_doctests.py``).
"""
from __future__ import annotations

import argparse
import collections
import importlib
import inspect
import sys
import types
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

#: The modules whose public names are the public API (as the API reference documents).
PUBLIC_MODULES = [
    "ftrans", "ftrans.typing", "ftrans.numpy", "ftrans.numpy.linalg", "ftrans.numpy.fft",
    "ftrans.lax", "ftrans.nn", "ftrans.optim", "ftrans.random",
    "ftrans.scipy.special", "ftrans.scipy.stats", "ftrans.scipy.signal",
    "ftrans.scipy.linalg", "ftrans.scipy.integrate", "ftrans.scipy.optimize",
    "ftrans.tree_util", "ftrans.tree", "ftrans.flatten_util", "ftrans.testing",
    "ftrans.checkpoint_policies", "ftrans.dask", "ftrans.compiler", "ftrans.debug",
    "ftrans.compat", "ftrans.compat.autograd", "ftrans.compat.autograd.functional",
    "ftrans.compat.autograd.forward_ad", "ftrans.compat.autograd.graph",
    "ftrans.compat.autograd.profiler", "ftrans.compat.autograd.profiler_util",
    "ftrans.compat.autograd.anomaly_mode", "ftrans.compat.nn", "ftrans.compat.nn.functional",
    "ftrans.compat.nn.init", "ftrans.compat.nn.utils", "ftrans.compat.nn.utils.rnn",
    "ftrans.compat.optim", "ftrans.compat.optim.lr_scheduler", "ftrans.compat.utils.data",
    "ftrans.compat.utils.checkpoint", "ftrans.compat.func", "ftrans.compat.linalg",
    "ftrans.compat.fft", "ftrans.compat.special", "ftrans.compat.signal.windows",
    "ftrans.compat.distributions", "ftrans.compat.cuda", "ftrans.compat.types",
]

#: numpydoc validation errors that fail the check (numpydoc's codes; the full list is
#: in ``numpydoc.validate.ERROR_MSGS``):
RULES = {
    "GL06": "a section name numpydoc does not know (Google-style 'Args:' and the like)",
    "GL08": "no docstring",
    "SS01": "no one-line summary",
    "SS03": "the summary does not end with a period",
    "PR01": "a parameter of the signature is not documented",
    "PR02": "a documented parameter is not in the signature",
    "RT01": "a function that returns a value has no Returns section",
}
#: Names that must show a ``>>>`` example (numpydoc's EX01): the main transforms and
#: the commonly used entry points.
EXAMPLES_REQUIRED = {
    "ftrans." + n for n in (
        "grad", "value_and_grad", "vjp", "jvp", "linearize", "vmap", "jacfwd", "jacrev",
        "hessian", "hvp", "jit", "make_ir", "custom_jvp", "custom_vjp", "checkpoint",
        "stop_gradient", "disable_jit")} | {
    "ftrans.tree_util.tree_map", "ftrans.tree_util.tree_flatten",
    "ftrans.tree_util.tree_unflatten", "ftrans.testing.check_grads",
    "ftrans.lax.scan", "ftrans.lax.cond", "ftrans.lax.while_loop", "ftrans.lax.fori_loop",
    "ftrans.random.key", "ftrans.random.split", "ftrans.random.normal",
    "ftrans.compat.tensor", "ftrans.compat.Tensor.backward", "ftrans.compat.autograd.grad",
    "ftrans.compat.autograd.Function", "ftrans.compat.nn.Module", "ftrans.compat.nn.Linear",
    "ftrans.compat.optim.SGD", "ftrans.compat.optim.Adam", "ftrans.compat.func.grad",
    "ftrans.compat.func.vmap", "ftrans.compat.no_grad",
}

# base classes whose members are not ftrans's to document
_FOREIGN_BASES = (object, tuple, list, dict, Exception, BaseException, type)


def public_names(mod: types.ModuleType) -> list[str]:
    """The public names of ``mod``: its ``__all__``, or its public attributes that
    belong to ftrans (not ``np``, ``warnings`` ... imported into a module without one)."""
    names = getattr(mod, "__all__", None)
    explicit = names is not None
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    out = []
    for n in names:
        try:
            obj = getattr(mod, n)
        except ImportError:             # a lazily imported optional backend (CuPy)
            continue
        if isinstance(obj, types.ModuleType) and not obj.__name__.startswith("ftrans"):
            continue
        if not explicit and (inspect.isfunction(obj) or inspect.isclass(obj)) and \
                not getattr(obj, "__module__", "").startswith("ftrans"):
            continue
        if n == "annotations":          # `from __future__ import annotations`
            continue
        out.append(n)
    return out


@dataclass
class Item:
    """One public callable: its dotted name, the object and how it is checked."""

    name: str
    obj: Any
    kind: str                       # "function", "class", "method", "property"
    namespace: str
    errors: list[str] = field(default_factory=list)
    annotated: bool = True
    documented: bool = True


def _namespace(modname: str) -> str:
    parts = modname.split(".")
    if parts[:2] == ["ftrans", "compat"]:
        return "ftrans.compat" + ("." + parts[2] if len(parts) > 2 and parts[2] in (
            "autograd", "nn", "optim", "utils", "distributions") else "")
    return ".".join(parts[:2])


def _class_members(cls: type) -> Iterator[tuple[str, Any, str]]:
    seen = set()
    for klass in cls.__mro__:
        if klass in _FOREIGN_BASES or not getattr(klass, "__module__", "").startswith("ftrans"):
            continue
        for n, v in vars(klass).items():
            if n.startswith("_") or n in seen:
                continue
            seen.add(n)
            if isinstance(v, property):
                yield n, v, "property"
            elif isinstance(v, (staticmethod, classmethod)):
                yield n, v.__func__, "method"
            elif inspect.isfunction(v) or inspect.ismethod(v):
                yield n, v, "method"


def inventory(modules: list[str] | None = None) -> tuple[list[Item], list[str]]:
    """Every public callable of ``modules`` once (first seen wins), and the constants."""
    items, constants, seen = [], [], set()
    for modname in modules or PUBLIC_MODULES:
        mod = importlib.import_module(modname)
        ns = _namespace(modname)
        for n in public_names(mod):
            obj = getattr(mod, n)
            if isinstance(obj, types.ModuleType):
                continue
            if not callable(obj) or isinstance(obj, types.GenericAlias) or \
                    type(obj).__module__ == "typing" or isinstance(obj, types.UnionType):
                constants.append(f"{modname}.{n}")
                continue
            if id(obj) in seen:
                continue
            seen.add(id(obj))
            if not str(getattr(obj, "__module__", "")).startswith("ftrans"):
                # another library's object handed on as is (NumPy's LinAlgError): its
                # documentation is that library's
                constants.append(f"{modname}.{n}")
                continue
            if inspect.isclass(obj):
                items.append(Item(f"{modname}.{n}", obj, "class", ns))
                for mn, mv, kind in _class_members(obj):
                    key = id(mv.fget if kind == "property" else mv)
                    if key in seen:
                        continue
                    seen.add(key)
                    items.append(Item(f"{modname}.{n}.{mn}", mv, kind, ns))
            elif inspect.isfunction(obj) or inspect.ismethod(obj) or \
                    hasattr(obj, "__signature__") or hasattr(obj, "__wrapped__"):
                items.append(Item(f"{modname}.{n}", obj, "function", ns))
            else:                       # a callable instance (a ufunc-like object)
                items.append(Item(f"{modname}.{n}", obj, "function", ns))
    return items, constants


def missing_annotations(item: Item) -> list[str]:
    """The parameters (and ``"return"``) of ``item`` that carry no annotation."""
    obj = item.obj
    if item.kind == "property":
        if obj.fget is None:
            return []
        fn, skip_first, need_return = obj.fget, True, True
    elif item.kind == "class":
        init = next((k.__dict__["__init__"] for k in obj.__mro__
                     if "__init__" in k.__dict__), None)
        if init is None or not inspect.isfunction(init) or \
                not getattr(init, "__module__", "").startswith("ftrans"):
            return []
        fn, skip_first, need_return = init, True, False
    else:
        fn, skip_first, need_return = obj, item.kind == "method", True
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):     # a builtin without a signature
        return []
    missing = [p.name for i, p in enumerate(sig.parameters.values())
               if p.annotation is inspect.Parameter.empty and not (i == 0 and skip_first)]
    if need_return and sig.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def docstring_errors(item: Item) -> list[str]:
    """numpydoc's validation errors of ``item``'s docstring that :data:`RULES` lists."""
    from numpydoc.docscrape import get_doc_object
    from numpydoc.validate import validate

    obj = item.obj.fget if item.kind == "property" else item.obj
    if obj is None:
        return []
    rules = set(RULES)
    if item.kind == "property":
        rules &= {"GL06", "GL08", "SS01", "SS03"}
    if item.name in EXAMPLES_REQUIRED:
        rules.add("EX01")
    try:
        res = validate(get_doc_object(obj))
    except Exception as e:  # noqa: BLE001 -- a docstring numpydoc cannot parse
        return [f"numpydoc could not parse the docstring: {type(e).__name__}: {e}"]
    return [f"{code} {msg}" for code, msg in res["errors"] if code in rules]


def check(modules: list[str] | None = None) -> tuple[list[Item], list[str]]:
    """Run both checks over the inventory; each item records its errors."""
    items, constants = inventory(modules)
    for it in items:
        miss = missing_annotations(it)
        if miss:
            it.annotated = False
            it.errors.append(f"not annotated: {', '.join(miss)}")
        errs = docstring_errors(it)
        if errs:
            it.documented = False
            it.errors.extend(errs)
    return items, constants


def _where(obj: Any) -> str:
    fn = obj.fget if isinstance(obj, property) else obj
    fn = inspect.unwrap(fn) if callable(fn) else fn
    try:
        path = inspect.getsourcefile(fn)
        line = inspect.getsourcelines(fn)[1]
    except (TypeError, OSError):
        return "?"
    return f"{Path(path).resolve().relative_to(ROOT) if path else '?'}:{line}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--module", action="append", help="check only these modules")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every violation")
    ap.add_argument("--check", action="store_true", help="exit 1 on any violation")
    a = ap.parse_args(argv)
    items, constants = check(a.module)
    by_ns: dict[str, list[Item]] = collections.defaultdict(list)
    for it in items:
        by_ns[it.namespace].append(it)
    print(f"{'namespace':28} {'callables':>9} {'annotated':>9} {'documented':>10}")
    for ns in sorted(by_ns):
        g = by_ns[ns]
        print(f"{ns:28} {len(g):9d} {sum(i.annotated for i in g):9d} "
              f"{sum(i.documented for i in g):10d}")
    print(f"{'total':28} {len(items):9d} {sum(i.annotated for i in items):9d} "
          f"{sum(i.documented for i in items):10d}   (+{len(constants)} constants and "
          f"re-exported foreign objects, not checked)")
    bad = [it for it in items if it.errors]
    if a.verbose:
        for it in bad:
            print(f"\n{it.name} ({it.kind}, {_where(it.obj)})")
            for e in it.errors:
                print(f"    {e}")
    return 1 if (a.check and bad) else 0


if __name__ == "__main__":
    sys.exit(main())
