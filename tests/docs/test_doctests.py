"""The ``>>>`` examples in ftrans's docstrings run and print what they show.

Equivalent to ``python -m pytest --doctest-modules ftrans`` (without the CuPy backend,
which needs a GPU), but part of the default test run; about a second.
"""
import doctest
import importlib
import pkgutil

import pytest

import ftrans

SKIP = {"ftrans.kernels.gpu"}     # imports CuPy at the top


def _modules():
    names = ["ftrans"]
    for info in pkgutil.walk_packages(ftrans.__path__, "ftrans."):
        if info.name not in SKIP:
            names.append(info.name)
    return names


def _has_examples(name):
    try:
        mod = importlib.import_module(name)
    except ImportError:               # an optional dependency is missing
        return False
    return bool(doctest.DocTestFinder().find(mod)) and any(
        t.examples for t in doctest.DocTestFinder().find(mod))


MODULES = [n for n in _modules() if _has_examples(n)]


def test_main_transforms_have_examples():
    import ftrans.transforms as tr
    for name in ("grad", "value_and_grad", "vjp", "jvp", "linearize", "vmap", "jacfwd",
                 "jacrev", "hessian", "hvp", "checkpoint", "custom_jvp", "custom_vjp"):
        assert ">>>" in (getattr(tr, name).__doc__ or ""), f"ftrans.{name} has no >>> example"


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    mod = importlib.import_module(name)
    result = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE,
                             verbose=False)
    assert result.failed == 0, f"{result.failed} docstring example(s) failed in {name}"
