"""Shapes a staged program must not get wrong: ``jit_p`` refuses arguments of other
shapes than its program was staged for (the generated code is shared across the sizes
of a rank, so another size would return wrong numbers rather than fail), and a staged
``reshape`` refuses a negative size (``-1`` is NumPy's, not the primitive's)."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.numpy as fnp
from ftrans.core.ir import stage
from ftrans.primitives import reshape
from ftrans.transforms._jit_primitive import jit_p


def test_jit_program_refuses_another_shape() -> None:
    ir, _ = stage(lambda x: fnp.sum(x, 0), [np.ones((3, 2))])
    np.testing.assert_array_equal(jit_p.bind(np.ones((3, 2)), ir=ir, name="f")[0], [3.0, 3.0])
    with pytest.raises(TypeError, match=r"staged for input shapes \[\(3, 2\)\], got \[\(4, 2\)\]"):
        jit_p.bind(np.ones((4, 2)), ir=ir, name="f")


def test_staged_reshape_refuses_a_negative_size() -> None:

    with pytest.raises(ValueError, match=r"non-negative sizes with the 6 elements"):
        stage(lambda x: reshape(x, (-1,)), [np.ones((3, 2))])
