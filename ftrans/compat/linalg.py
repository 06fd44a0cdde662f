"""``torch.linalg`` for ``ftrans.compat``: adapters onto ftrans's functions (no derivative is
written here; each node's backward is ``ftrans.vjp`` of the adapted function)."""
from __future__ import annotations

__all__: list = []
TOPLEVEL: dict = {}   # torch.* aliases of this namespace's functions (torch.det, torch.inverse ...)
METHODS: dict = {}    # Tensor methods (Tensor.det ...)
