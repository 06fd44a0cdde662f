"""``torch.nn.utils.rnn``: padding variable-length sequences (packed sequences are not
provided by ftrans.compat)."""
from __future__ import annotations

from collections.abc import Iterable

import ftrans.compat as torch
from ...types import Tensor

__all__ = ["pad_sequence"]


def pad_sequence(sequences: Iterable[Tensor], batch_first: bool = False, padding_value: float = 0.0,
                 padding_side: str = "right") -> Tensor:
    """Stack variable-length tensors, padding them to the longest.

    As ``torch.nn.utils.rnn.pad_sequence``.

    Parameters
    ----------
    sequences : iterable of Tensor
        Shapes ``(L_i, *)``.
    batch_first : bool, optional
        Return ``(B, L_max, *)`` instead of ``(L_max, B, *)`` (default False).
    padding_value : float, optional
        The fill value (default 0).
    padding_side : str, optional
        ``'right'`` (default) or ``'left'``.

    Returns
    -------
    Tensor
        ``(L_max, B, *)`` or ``(B, L_max, *)``.

    Raises
    ------
    ValueError
        For another ``padding_side``.
    RuntimeError
        For no sequences.
    """
    if padding_side not in ("right", "left"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    L = max(s.shape[0] for s in sequences)
    rows = []
    for s in sequences:
        n = L - s.shape[0]
        if n:
            pad = torch.full((n,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype)
            s = torch.cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return torch.stack(rows, 0 if batch_first else 1)
