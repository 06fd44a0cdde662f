"""``torch.distributions`` for ``ftrans.compat`` on ``ftrans.scipy.stats`` and ``ftrans.random``."""
from __future__ import annotations

__all__: list = []
