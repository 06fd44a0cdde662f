"""``select``: NumPy's three-argument ``where(condition, x, y)``.

The condition has no derivative.  The cotangent of ``x`` is ``where(c, ct, 0)``
(summed back to ``x``'s shape): an unselected branch receives an exact 0, but a
NaN or inf *produced inside* the unselected branch still poisons the gradient
through that branch's own rule -- use the double-``where`` idiom (make the input
of the unsafe branch safe with a first ``where``).

The double-``where`` idiom, e.g. for ``sqrt(x)`` where ``x > 0`` and 0 elsewhere::

    # WRONG: at x == 0 the gradient is nan.  sqrt's VJP gets the cotangent 0 from
    # where, and multiplies it by sqrt'(0) = inf: 0 * inf = nan.
    y = where(x > 0, sqrt(x), 0.0)
    # RIGHT: the unselected entries of the unsafe branch see a harmless input (1.0),
    # so every factor in the chain rule is finite; the gradient at 0 is 0.
    safe = where(x > 0, x, 1.0)
    y = where(x > 0, sqrt(safe), 0.0)

The same applies to ``log(x)`` at ``x <= 0``, ``x / y`` at ``y == 0``, ``arcsin`` at
+-1 ...  (``tests/numpy/test_careful_grads.py`` checks the example).  ``xlogy``,
``entr``, ``expit`` and ``nan_to_num`` in ``ftrans.scipy.special``/``ftrans.numpy`` are
written this way.
"""
from __future__ import annotations

from ..kernels import backend_for
from ._rules import def_elementwise
from ._base import select_p, where

__all__ = ["where", "select_p"]


def _impl(c, x, y):
    return backend_for(c, x, y).where(c, x, y)


def _where(c, t_x, t_y):
    return select_p.bind(c, t_x, t_y)


def_elementwise(
    select_p, _impl,
    [None, lambda t, ans, c, x, y: _where(c, t, 0.0), lambda t, ans, c, x, y: _where(c, 0.0, t)],
    [None, lambda ct, ans, c, x, y: _where(c, ct, 0.0), lambda ct, ans, c, x, y: _where(c, 0.0, ct)])


# compiler lowering (ftrans.compiler; format in its module docstring)
select_p.lowering = {"kind": "elementwise", "numba": "({1} if {0} else {2})",
                     "cuda": "({0} ? {1} : {2})", "complex": True, "cast": ("bool", "out", "out")}
