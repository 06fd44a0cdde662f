"""Scaled dot-product attention (Vaswani et al. 2017) with
``torch.nn.functional.scaled_dot_product_attention``'s arguments and masking rules,
written as a composition of ``dot_general``, :func:`~ftrans.nn.softmax` and
:func:`~ftrans.nn.dropout`.
"""
from __future__ import annotations

import math

import numpy as np

from .. import primitives as P
from ..typing import Array, ArrayLike, Key
from ._util import as_float
from .activations import softmax
from .norm import dropout

__all__ = ["scaled_dot_product_attention"]


def _bmm(a: Array, b: Array, contract_a: int, contract_b: int) -> Array:
    batch = tuple(range(len(a.shape) - 2))
    return P.dot_general(a, b, (((contract_a,), (contract_b,)), (batch, batch)))


def scaled_dot_product_attention(q: ArrayLike, k: ArrayLike, v: ArrayLike,
                                 attn_mask: Array | None = None, dropout_p: float = 0.0,
                                 is_causal: bool = False, scale: float | None = None,
                                 key: Key | None = None) -> Array:
    """Attention ``softmax(q k^T * scale + mask) v``.

    ``torch.nn.functional.scaled_dot_product_attention``.  A row whose every position
    is masked gives NaN (as the softmax of all ``-inf``).

    Parameters
    ----------
    q : ArrayLike
        Queries ``(*, L, E)``.
    k : ArrayLike
        Keys ``(*, S, E)`` (same leading axes).
    v : ArrayLike
        Values ``(*, S, Ev)`` (same leading axes).
    attn_mask : Array, optional
        A boolean mask broadcastable to ``(*, L, S)`` (True = attend; a masked position
        gets ``-inf``), or a float mask added to the scores.
    dropout_p : float, optional
        Dropout on the attention weights (needs ``key``, see :func:`~ftrans.nn.dropout`).
    is_causal : bool, optional
        Attend to positions ``j <= i`` only (the top-left aligned lower triangle,
        PyTorch); excludes ``attn_mask``.
    scale : float, optional
        Default ``1 / sqrt(E)``.
    key : Key, optional
        The randomness of the dropout.

    Returns
    -------
    Array
        ``(*, L, Ev)``.

    Raises
    ------
    ValueError
        For mismatched shapes, ``is_causal`` with a mask, or ``dropout_p > 0`` without a
        key.
    """
    q, k, v = as_float(q, "q"), as_float(k, "k"), as_float(v, "v")
    if len(q.shape) < 2 or len(k.shape) != len(q.shape) or len(v.shape) != len(q.shape) \
            or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2] \
            or q.shape[:-2] != k.shape[:-2] or k.shape[:-2] != v.shape[:-2]:
        raise ValueError(f"scaled_dot_product_attention: expected q (*, L, E), k (*, S, E), "
                         f"v (*, S, Ev) with the same leading axes; got {tuple(q.shape)}, "
                         f"{tuple(k.shape)}, {tuple(v.shape)}")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: pass either attn_mask or "
                         "is_causal=True, not both (PyTorch)")
    nd = len(q.shape)
    L, S = q.shape[-2], k.shape[-2]
    s = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    scores = P.mul(_bmm(q, k, nd - 1, nd - 1), s)                   # (*, L, S)
    if is_causal:
        attn_mask = np.tril(np.ones((L, S), bool))
    if attn_mask is not None:
        if np.broadcast_shapes(tuple(attn_mask.shape), tuple(scores.shape)) != \
                tuple(scores.shape):
            raise ValueError(f"scaled_dot_product_attention: attn_mask of shape "
                             f"{tuple(attn_mask.shape)} must broadcast to the scores' shape "
                             f"(*, L, S) = {tuple(scores.shape)}")
        if np.dtype(attn_mask.dtype).kind == "b":
            scores = P.where(attn_mask, scores, -np.inf)
        else:
            scores = P.add(scores, as_float(attn_mask, "attn_mask"))
    w = softmax(scores, axis=-1)
    if dropout_p > 0.0:
        if key is None:
            raise ValueError("scaled_dot_product_attention: dropout_p > 0 needs a key (an "
                             "ftrans.random key, a numpy Generator or a keep mask)")
        w = dropout(key, w, dropout_p)
    return _bmm(w, v, nd - 1, nd - 2)
