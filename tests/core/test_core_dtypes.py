"""dtype rules: float0, NumPy 2 promotion with weak Python scalars."""
import numpy as np
import pytest

import ftrans
from ftrans.core import (float0, result_type, is_inexact, is_complex, is_float, real_dtype,
                         ShapedArray, aval_of, shape_of, dtype_of)
from ftrans.core.dtypes import canonical_dtype


def test_float0_is_zero_sized_and_exported():
    assert ftrans.float0 is float0
    assert float0.itemsize == 0
    z = np.zeros((3, 2), float0)
    assert z.shape == (3, 2) and z.nbytes == 0
    assert not is_inexact(float0)


F32 = np.ones(2, np.float32)
F64 = np.ones(2, np.float64)
I32 = np.ones(2, np.int32)
I64 = np.ones(2, np.int64)
C64 = np.ones(2, np.complex64)
B = np.ones(2, bool)


@pytest.mark.parametrize("args", [
    (F32, 0.5), (F32, 2), (F32, True), (F32, 1j), (I32, 0.5), (I64, 0.5), (I32, 3),
    (B, 1), (B, 1.5), (C64, 0.5), (F32, F64), (I32, F32), (I64, F32), (F32, C64),
    (F64, C64), (0.5, 2), (1, True), (F32, np.float64(1.0)), (np.float32(1), 2.0),
    (F32, np.dtype(np.float64)), (I32, np.float16),
], ids=lambda a: "-".join(type(x).__name__ if not hasattr(x, "dtype") else str(x.dtype)
                          for x in a) if isinstance(a, tuple) else str(a))
def test_result_type_matches_numpy(args):
    assert result_type(*args) == np.result_type(*args)
    # and the actual arithmetic agrees (NEP 50: Python scalars are weak)
    arrays = [a for a in args if not isinstance(a, (np.dtype, type))]
    if len(arrays) == 2 and not all(isinstance(a, (bool, int, float, complex)) for a in arrays):
        assert (arrays[0] + arrays[1]).dtype == result_type(*args)


def test_weak_scalar_rules_named_in_design():
    assert result_type(F32, 0.5) == np.float32    # float32 array * Python float
    assert result_type(I64, 0.5) == np.float64    # int array * Python float
    assert result_type(F32, 3) == np.float32
    assert result_type(C64, 0.5) == np.complex64


def test_result_type_of_shaped_arrays_and_tracers():
    assert result_type(ShapedArray((2,), np.float32), 0.5) == np.float32
    seen = []

    def f(x):
        seen.append(result_type(x, 0.5))
        return x.sum()
    ftrans.grad(f)(np.ones(2, np.float32))
    assert seen == [np.float32]


def test_kind_predicates():
    assert is_inexact(np.float32) and is_inexact(np.complex128)
    assert not is_inexact(np.int64) and not is_inexact(bool)
    assert is_float(np.float16) and not is_float(np.complex64)
    assert is_complex(np.complex64) and not is_complex(np.float64)
    assert real_dtype(np.complex64) == np.float32
    assert real_dtype(np.complex128) == np.float64
    assert real_dtype(np.float32) == np.float32


def test_canonical_dtype_error():
    assert canonical_dtype("float32") == np.float32
    with pytest.raises(TypeError, match="dtype"):
        canonical_dtype(object())


def test_abstract_values():
    a = ShapedArray([2, 3], "float32")
    assert a.shape == (2, 3) and a.dtype == np.float32 and a.ndim == 2 and a.size == 6
    assert a == ShapedArray((2, 3), np.float32) and hash(a) == hash(ShapedArray((2, 3), "f4"))
    assert a != ShapedArray((3, 2), np.float32)
    w = aval_of(0.5)
    assert w.weak_type and w.shape == () and w.dtype == np.float64
    assert not aval_of(np.float64(0.5)).weak_type
    assert aval_of(np.ones((4, 1), np.int8)) == ShapedArray((4, 1), np.int8)
    assert shape_of(3.0) == () and shape_of(np.ones((2, 2))) == (2, 2)
    assert dtype_of(3) == np.int64 and dtype_of(np.ones(1, np.float16)) == np.float16


def test_staged_elementwise_dtype_is_numpys_for_every_operand_mix():
    """The staged result dtype of an elementwise primitive equals the eager result's:
    operands of one dtype (the fast path of ``elementwise_abstract_eval``), a non-native
    byte order (NumPy's result is native), mixed dtypes, weak scalars and broadcasting."""
    big = np.arange(3.0).astype(">f8")
    cases = [(lambda x: x + x, (big,)),
             (lambda x, y: x * y, (F32, F32)),
             (lambda x, y: x * y, (F32, F64)),
             (lambda x: x * 2.0, (F32,)),
             (lambda x, y: x - y, (np.ones((2, 1), np.int8), np.ones(3, np.int8)))]
    for f, args in cases:
        ir = ftrans.make_ir(f)(*args)
        out = ir.eqns[-1].outputs[0].aval
        eager = f(*args)
        assert out.dtype == eager.dtype and out.dtype.isnative == eager.dtype.isnative
        assert out.shape == eager.shape
