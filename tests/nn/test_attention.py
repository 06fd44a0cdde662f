"""ftrans.nn.scaled_dot_product_attention against torch, with masks and causality."""
import numpy as np
import pytest

import ftrans.nn as fnn
from ftrans.testing import check_grads

from nn_helpers import (check_jit, check_vmap, compare_torch, needs_torch, rng, torch,
                        torch_kwargs)

R = rng(0)
Q = R.standard_normal((2, 3, 4))
K = R.standard_normal((2, 5, 4))
V = R.standard_normal((2, 5, 2))
BOOL = R.random((3, 5)) > 0.3
BOOL[:, 0] = True                         # every row attends somewhere
FLOAT = R.standard_normal((2, 3, 5))

CASES = [("plain", {}), ("scale", dict(scale=0.3)), ("bool_mask", dict(attn_mask=BOOL)),
         ("float_mask", dict(attn_mask=FLOAT)), ("causal", dict(is_causal=True))]


@needs_torch
@pytest.mark.parametrize("name,kw", CASES, ids=[c[0] for c in CASES])
def test_against_torch(name, kw):
    compare_torch(lambda q, k, v: fnn.scaled_dot_product_attention(q, k, v, **kw),
                  lambda q, k, v: torch.nn.functional.scaled_dot_product_attention(
                      q, k, v, **torch_kwargs(kw)), (Q, K, V), (0, 1, 2), rtol=1e-10,
                  atol=1e-12)


@pytest.mark.parametrize("name,kw", CASES[2:], ids=[c[0] for c in CASES[2:]])
def test_grads_jit_vmap(name, kw):
    f = lambda q, k, v: fnn.scaled_dot_product_attention(q, k, v, **kw)  # noqa: E731
    kw1 = {k: (v[:1] if k == "attn_mask" and v.ndim == 3 else v) for k, v in kw.items()}
    check_grads(lambda q, k, v: fnn.scaled_dot_product_attention(q, k, v, **kw1),
                (Q[:1], K[:1], V[:1]), order=2, modes=("fwd", "rev"))
    check_jit(f, (Q, K, V))
    if "attn_mask" not in kw or kw["attn_mask"].ndim == 2:
        check_vmap(lambda q, k, v: f(q, k, v), Q, (K[0], V[0]))


def test_dropout_and_errors():
    keep = R.random((2, 3, 5)) > 0.5
    out = fnn.scaled_dot_product_attention(Q, K, V, dropout_p=0.5, key=keep)
    w = fnn.softmax(Q @ K.transpose(0, 2, 1) / 2.0)
    np.testing.assert_allclose(out, np.where(keep, w * 2, 0) @ V, rtol=1e-12)
    with pytest.raises(ValueError, match="key"):
        fnn.scaled_dot_product_attention(Q, K, V, dropout_p=0.1)
    with pytest.raises(ValueError, match="not both"):
        fnn.scaled_dot_product_attention(Q, K, V, attn_mask=BOOL, is_causal=True)
    with pytest.raises(ValueError, match="broadcast"):
        fnn.scaled_dot_product_attention(Q[:1], K[:1], V[:1], attn_mask=FLOAT)
    with pytest.raises(ValueError, match="expected q"):
        fnn.scaled_dot_product_attention(Q, K[:, :, :3], V)
