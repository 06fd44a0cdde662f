"""``torch.nn.utils.rnn``: padding variable-length sequences (packed sequences are not
provided by ftrans.compat)."""
from __future__ import annotations

import ftrans.compat as torch

__all__ = ["pad_sequence"]


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of shapes ``(L_i, *)`` into ``(L_max, B, *)`` (``batch_first``:
    ``(B, L_max, *)``), filling with ``padding_value`` on the ``padding_side``."""
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
