"""``torch.signal`` for ``ftrans.compat``: the window functions of ``torch.signal.windows``."""
from __future__ import annotations

from . import windows

__all__ = ["windows"]
