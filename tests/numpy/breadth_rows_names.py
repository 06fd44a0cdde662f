"""Breadth-table rows for the differentiable names that had no ``check_grads`` row
(``test_numpy_names.py::test_every_differentiable_name_has_a_gradient_check`` lists
them): conversions (identity on values), fill-value constructors, ``linspace`` in its
endpoints, ``divmod``'s remainder, ``float_power``, and the values of
``trim_zeros``/``unique_counts``/``unique_inverse``.

Appended last to ``breadth_table.ROWS`` so that earlier rows keep their random inputs.
"""
import numpy as np

from breadth_table import Row, DOMAINS, _fnp


def _conversion(name, **kw):
    return Row(name, fn=lambda x: getattr(_fnp(), name)(x, **kw),
               ref=lambda x: getattr(np, name)(x, **kw), args=[((2, 3), "real")],
               complex=True)


def _padded(xp):
    """``x`` with zeros around it: the zeros are constants, so finite differences do not
    turn them nonzero (which would change the result's shape)."""
    def f(x):
        return xp.trim_zeros(xp.concatenate([xp.zeros(2, x.dtype), x, xp.zeros(1, x.dtype)]))
    return f


ROWS_NAMES = [
    _conversion("array"), _conversion("asarray"), _conversion("asanyarray"),
    Row("asarray_chkfinite", args=[((2, 3), "real")], complex=True, batch=False,
        note="checks concrete values: raises ConcretizationError under vmap/jit"),
_conversion("ascontiguousarray"),
    _conversion("asfortranarray"), _conversion("require", requirements="C"),
    Row("full", fn=lambda v: _fnp().full((2, 3), v), ref=lambda v: np.full((2, 3), v),
        args=[((), "real")], complex=True),
    Row("full_like", fn=lambda a, v: _fnp().full_like(a, v),
        ref=lambda a, v: np.full_like(a, v), args=[((2, 3), "real"), ((), "real")],
        diff=[1], complex=True),
    Row("linspace", fn=lambda a, b: _fnp().linspace(a, b, 5),
        ref=lambda a, b: np.linspace(a, b, 5), args=[((), "real"), ((3,), "real")]),
    Row("linspace", fn=lambda a, b: _fnp().linspace(a, b, 4, endpoint=False, axis=1),
        ref=lambda a, b: np.linspace(a, b, 4, endpoint=False, axis=1),
        args=[((2,), "real"), ((), "real")]),
    Row("divmod", fn=lambda x, y: _fnp().divmod(x, y)[1],
        ref=lambda x, y: np.divmod(x, y)[1],
        args=lambda rng, dt: (np.asarray(rng.uniform(0.1, 0.9, (2, 3)) + 3 * rng.integers(
            -2, 3, (2, 3)), dt), np.asarray(np.full((2, 3), 3.0) + 0.0, dt)), diff=[0],
        note="the remainder (the quotient is piecewise constant)"),
    Row("float_power", args=[((2, 3), "pos"), ((2, 3), "real")]),
    Row("trim_zeros", fn=lambda x: _padded(_fnp())(x), ref=lambda x: _padded(np)(x),
        args=[((5,), "away")], batch=False),
    Row("unique_counts", fn=lambda x: _fnp().unique_counts(x).values,
        ref=lambda x: np.unique_counts(x).values, args=[((2, 3), "distinct")], batch=False),
    Row("unique_inverse", fn=lambda x: _fnp().unique_inverse(x).values,
        ref=lambda x: np.unique_inverse(x).values, args=[((2, 3), "distinct")], batch=False),
]
