"""``ftrans.optim``: functional optimizers over pytrees (optax's ``init``/``update``).

Each optimizer is a :class:`GradientTransformation` ``(init, update)`` of pure functions::

    opt = optim.adam(1e-3)
    state = opt.init(params)
    updates, state = opt.update(grads, state, params)
    params = optim.apply_updates(params, updates)

The update formulas are PyTorch's (the pseudo-code of the ``torch.optim`` documentation),
so trajectories match ``torch.optim``'s; each is written once as a composition of
``ftrans.numpy`` operations, which runs under ``jit``, ``vmap`` and ``grad``, and whose
implementation for concrete float NumPy leaves is a fused one-pass numba kernel.  The
state is a NamedTuple of pytrees and an int32 step ``count``.  ``learning_rate`` may be a
schedule ``callable(count) -> float``.  ``ftrans.compat.optim`` adapts these to
PyTorch's classes.
"""
from ._base import GradientTransformation, apply_updates
from ._sgd import sgd, SgdState
from ._adam import adam, adamw, AdamState
from ._rmsprop import rmsprop, RmspropState
from ._adagrad import adagrad, AdagradState

__all__ = ["GradientTransformation", "apply_updates", "sgd", "adam", "adamw", "rmsprop",
           "adagrad", "SgdState", "AdamState", "RmspropState", "AdagradState"]
