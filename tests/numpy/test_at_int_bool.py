"""``ftrans.numpy.at`` updates of integer and boolean arrays keep their dtype and agree with
NumPy's ``ufunc.at`` (repeated indices accumulate)."""
import numpy as np
import pytest

import ftrans.numpy as fnp

IDX = np.array([0, 0, 2, 3, 3, 3])


@pytest.mark.parametrize("op,ufunc", [("add", np.add), ("multiply", np.multiply),
                                      ("max", np.maximum), ("min", np.minimum)])
@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.bool_])
def test_at_keeps_dtype(op, ufunc, dtype):
    x = np.array([3, 0, -2, 5, 1]).astype(dtype)
    v = np.array([2, -4, 7, 0, 9, -1]).astype(dtype)
    ref = x.copy()
    ufunc.at(ref, IDX, v)
    got = getattr(fnp.at(x)[IDX], op)(v)
    assert got.dtype == ref.dtype
    np.testing.assert_array_equal(got, ref)


def test_set_bool():
    x = np.zeros(4, bool)
    got = fnp.at(x)[np.array([1, 1, 3])].set(np.array([False, True, True]))
    assert got.dtype == np.bool_
    np.testing.assert_array_equal(got, [False, True, False, True])
