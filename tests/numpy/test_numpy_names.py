"""NumPy's names against the committed list (``numpy_names.py``) and ``ftrans.numpy``.

Issue 19's contract: every public function of ``numpy``, ``numpy.linalg`` and
``numpy.fft`` is covered (differentiable or non-differentiable by nature) or refused with
a reason; a name a newer NumPy adds is reported, not a failure.
"""
import inspect
import warnings

import numpy as np
import pytest

import ftrans.numpy as fnp
from ftrans.numpy._refused import REFUSED

import breadth_table
import fnp_cases
from numpy_names import DIFFERENTIABLE, NON_DIFFERENTIABLE

_MODULES = (("", np, fnp), ("linalg.", np.linalg, fnp.linalg), ("fft.", np.fft, fnp.fft))


def _numpy_names():
    """Public callables of numpy, numpy.linalg, numpy.fft (classes excluded), dotted."""
    out = {}
    for prefix, mod, fmod in _MODULES:
        for n in dir(mod):
            if n.startswith("_"):
                continue
            obj = getattr(mod, n)
            if callable(obj) and not inspect.isclass(obj):
                out[prefix + n] = (n, mod, fmod)
    return out


NAMES = _numpy_names()


def _refused(dotted):
    return dotted.rsplit(".", 1)[-1] in REFUSED


def test_the_three_categories_are_disjoint():
    assert not DIFFERENTIABLE & set(NON_DIFFERENTIABLE)
    assert not DIFFERENTIABLE & set(REFUSED)
    assert not set(NON_DIFFERENTIABLE) & set(REFUSED)


def test_every_numpy_name_is_classified():
    """Unclassified names (a NumPy newer than the list) are reported, not failed."""
    new = sorted(n for n in NAMES if n not in DIFFERENTIABLE and n not in NON_DIFFERENTIABLE
                 and not _refused(n))
    if new:
        warnings.warn(f"NumPy {np.__version__} has names the committed list does not "
                      f"classify (add them to tests/numpy/numpy_names.py): {new}")
    covered = [n for n in NAMES if n in DIFFERENTIABLE or n in NON_DIFFERENTIABLE]
    print(f"\nNumPy {np.__version__}: {len(NAMES)} public functions; ftrans.numpy covers "
          f"{len(covered)} ({len([n for n in covered if n in DIFFERENTIABLE])} "
          f"differentiable), refuses {len([n for n in NAMES if _refused(n)])}, "
          f"{len(new)} unclassified")
    assert len(covered) >= 350


@pytest.mark.parametrize("dotted", sorted(n for n in NAMES if n in DIFFERENTIABLE
                                          or n in NON_DIFFERENTIABLE))
def test_covered_name_is_ftrans_own_function(dotted):
    n, mod, fmod = NAMES[dotted]
    f = getattr(fmod, n)
    assert callable(f)
    if dotted in DIFFERENTIABLE:
        assert f is not getattr(mod, n), f"fnp.{dotted} is NumPy's own (not differentiable)"


def _grad_checked():
    names = {r.name for r in breadth_table.ROWS if r.grad}
    names |= set(fnp_cases.DIFFERENTIABLE) | set(fnp_cases.ZERO_DERIVATIVE)
    return names


def test_every_differentiable_name_has_a_gradient_check():
    """Each differentiable name is checked by finite differences somewhere: a breadth
    row with check_grads, an fnp_cases entry, or it is the same function as one that is."""
    checked = _grad_checked()
    funcs = {}
    for dotted in checked:
        if dotted in NAMES:
            n, _, fmod = NAMES[dotted]
            funcs[id(getattr(fmod, n))] = dotted
    unchecked = []
    for dotted in sorted(DIFFERENTIABLE & set(NAMES)):
        if dotted in checked:
            continue
        n, _, fmod = NAMES[dotted]
        if id(getattr(fmod, n)) not in funcs:
            unchecked.append(dotted)
    assert not unchecked, " ".join(unchecked)


@pytest.mark.parametrize("dotted", sorted(n for n in NAMES if _refused(n)))
def test_refused_name_raises_its_reason(dotted):
    n, _, fmod = NAMES[dotted]
    with pytest.raises(AttributeError, match="on purpose") as info:
        getattr(fmod, n)
    assert REFUSED[n].split(":")[0].split(",")[0] in str(info.value)
