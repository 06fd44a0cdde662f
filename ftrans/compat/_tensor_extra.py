"""``_Extra``: a tensor's rarely needed state (hooks, views, forward AD), allocated on
first use by :func:`._tensor._extra`."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any


class _Extra:
    """Rarely needed per-tensor state, allocated on first use."""

    __slots__ = ("hooks", "retains", "base", "chain", "view_ver", "acc", "inference",
                 "nograd_view", "name", "post_acc", "fw")

    def __init__(self) -> None:
        self.hooks: dict[int, Callable[..., Any]] | None = None  # leaf tensor hooks {id: fn}
        self.retains = False     # retain_grad() on a non-leaf
        self.base: Any = None    # view: the base tensor (never itself a view)
        self.chain: Any = None   # view: ((prim, params, Meta, extra_args), ...) base -> view
        self.view_ver = 0        # view: version when its grad_fn was last valid
        self.acc: Any = None     # weakref to the AccumulateGrad node of a leaf
        self.inference = False   # created in inference mode
        self.nograd_view = False  # view created in no_grad of a base requiring grad
        self.name: str | None = None
        self.post_acc: dict[int, Callable[..., Any]] | None = None  # post-accumulate hooks
        self.fw: Any = None      # forward AD: (level generation, tangent); autograd.forward_ad
