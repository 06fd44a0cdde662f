"""compat operations: indexing and scatter operations (scatter*, index_*, masked_*, take*, nonzero, *_scatter/*_copy views, as_strided, unfold).

Each function adapts one ``ftrans.numpy``/``ftrans.scipy``/``ftrans.nn`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function
(:func:`ftrans.compat._opbase._compose`): no derivative is written here.
"""
from __future__ import annotations

__all__: list = []   # torch.* functions defined here (installed by ftrans.compat)
METHODS: dict = {}   # Tensor methods defined here (installed by ftrans.compat)
