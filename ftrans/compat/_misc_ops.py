"""compat operations: construction and arithmetic helpers (roll, tile, kron, meshgrid, block_diag, add* fused products, lerp, hypot, tensordot, cdist ...).

Each function adapts one ``ftrans.numpy``/``ftrans.scipy``/``ftrans.nn`` function to
PyTorch's signature; its node's backward is ``ftrans.vjp`` of that function
(:func:`ftrans.compat._opbase._compose`): no derivative is written here.
"""
from __future__ import annotations

__all__: list = []   # torch.* functions defined here (installed by ftrans.compat)
METHODS: dict = {}   # Tensor methods defined here (installed by ftrans.compat)
