"""Connectionist temporal classification (``torch.nn.functional.ctc_loss``), written once
as a composition of primitives: the forward (alpha) recursion in log space over the
blank-extended label sequences, one time step per iteration, vectorized over the batch.

``ftrans.compat.nn.functional.ctc_loss`` adapts it.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .. import numpy as fnp
from ..typing import Array, ArrayLike
from ._util import as_float, check_reduction
from .activations import logsumexp

__all__ = ["ctc_loss"]

#: "log 0" of the recursion: finite, so that the log-sum-exp derivatives stay finite
NEG = -1e30


def _rows(targets: ArrayLike, target_lengths: ArrayLike) -> tuple[list[Array], Array]:
    tl = np.asarray(target_lengths, np.int64).reshape(-1)
    tg = np.asarray(targets, np.int64)
    if tg.ndim == 1:   # concatenated targets
        starts = np.concatenate([[0], np.cumsum(tl)[:-1]]).astype(np.int64)
        return [tg[s:s + n] for s, n in zip(starts, tl)], tl
    if tg.ndim != 2 or (tl.size and tg.shape[1] < tl.max()):
        raise ValueError(f"ctc_loss: targets must be (N, S >= max target length) or 1-d "
                         f"concatenated, got shape {tg.shape}")
    return [tg[b, :tl[b]] for b in range(tg.shape[0])], tl


def ctc_loss(log_probs: ArrayLike, targets: ArrayLike, input_lengths: ArrayLike | Sequence[int],
             target_lengths: ArrayLike | Sequence[int], blank: int = 0,
             reduction: str = "mean", zero_infinity: bool = False) -> Array:
    """Connectionist temporal classification loss (``torch.nn.functional.ctc_loss``).

    An impossible alignment gives ``inf`` (0 with ``zero_infinity``, derivative 0).  The
    derivative is the exact one of this function with respect to ``log_probs``
    (PyTorch's own adds ``exp(log_probs)``, the gradient with respect to logits behind a
    ``log_softmax``).

    Parameters
    ----------
    log_probs : ArrayLike
        ``(T, N, C)`` log-probabilities over ``C`` classes.
    targets : ArrayLike
        Integer targets, padded ``(N, S)`` or concatenated 1-d.
    input_lengths, target_lengths : ArrayLike or sequence of int
        Per-sample lengths ``(N,)``.
    blank : int, optional
        The blank class.
    reduction : {'none', 'mean', 'sum'}, optional
        ``'none'``: the per-sample negative log-likelihoods ``(N,)``; ``'sum'``: their
        sum; ``'mean'`` (PyTorch's): the batch mean of each loss divided by its target
        length.
    zero_infinity : bool, optional
        Replace infinite losses (and their derivatives) by 0.

    Returns
    -------
    Array
        ``(N,)`` for ``'none'``, else a scalar.

    Raises
    ------
    ValueError
        For malformed targets or lengths.

    Notes
    -----
    Graves et al., "Connectionist Temporal Classification", ICML 2006.
    """
    lp = as_float(log_probs, "log_probs")
    if len(lp.shape) != 3:
        raise ValueError(f"ctc_loss: log_probs must be (T, N, C), got shape {tuple(lp.shape)}")
    check_reduction(reduction)
    T, N, C = lp.shape
    if not 0 <= blank < C:
        raise ValueError(f"ctc_loss: blank {blank} is not a class of {C}")
    rows, tl = _rows(targets, target_lengths)
    il = np.asarray(input_lengths, np.int64).reshape(-1)
    if len(rows) != N or il.size != N:
        raise ValueError(f"ctc_loss: {N} sequences in log_probs, {len(rows)} targets and "
                         f"{il.size} input lengths")
    if il.size and (il.max() > T or il.min() < 0):
        raise ValueError(f"ctc_loss: input lengths must lie in [0, {T}], got {il}")
    L = 2 * (int(tl.max()) if N else 0) + 1
    ext = np.full((N, L), blank, np.int64)
    skip = np.zeros((N, L), bool)        # s may come from s - 2 (distinct labels around)
    for b, r in enumerate(rows):
        ext[b, 1:2 * len(r):2] = r
        skip[b, 3:2 * len(r):2] = r[1:] != r[:-1]
    emit = fnp.take_along_axis(lp, np.broadcast_to(ext[None], (T, N, L)), axis=2)
    neg = fnp.full((N, L), NEG, lp.dtype)
    start = (np.arange(L)[None, :] < 2) & (np.arange(L)[None, :] < 2 * tl[:, None] + 1)
    alpha = fnp.where(start, emit[0], neg)
    pad1, pad2 = fnp.full((N, 1), NEG, lp.dtype), fnp.full((N, 2), NEG, lp.dtype)
    for t in range(1, T):
        s1 = fnp.concatenate([pad1, alpha[:, :-1]], axis=1)
        s2 = fnp.where(skip, fnp.concatenate([pad2, alpha[:, :-2]], axis=1), neg) \
            if L > 2 else neg
        new = logsumexp(fnp.stack([alpha, s1, s2]), axis=0) + emit[t]
        alpha = fnp.where((t < il)[:, None], new, alpha)
    last = (2 * tl)[:, None]
    ends = fnp.concatenate([fnp.take_along_axis(alpha, last, axis=1),
                            fnp.where((tl > 0)[:, None],
                                      fnp.take_along_axis(alpha, np.maximum(last - 1, 0),
                                                          axis=1), pad1)], axis=1)
    nll = -logsumexp(ends, axis=1)
    impossible = nll > -NEG / 10
    nll = fnp.where(impossible, 0.0 if zero_infinity else np.inf, nll)
    if reduction == "mean":
        return fnp.mean(nll / np.maximum(tl, 1).astype(lp.dtype))
    if reduction == "sum":
        return fnp.sum(nll)
    return nll
