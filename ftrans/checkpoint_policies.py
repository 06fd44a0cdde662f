"""Checkpoint policies (JAX's ``jax.checkpoint_policies``): which intermediate values
``ftrans.checkpoint(fun, policy=...)`` keeps for the backward pass instead of
recomputing them.  See :mod:`ftrans.transforms._remat` for how they are applied.

>>> import ftrans, ftrans.numpy as fnp, numpy as np
>>> layer = ftrans.checkpoint(lambda w, x: fnp.tanh(w @ x),
...                           policy=ftrans.checkpoint_policies.dots_saveable)
>>> ftrans.grad(lambda w: fnp.sum(layer(w, np.ones(2))))(np.zeros((2, 2)))
array([[1., 1.],
       [1., 1.]])
"""
from .transforms._remat import (everything_saveable, nothing_saveable, dots_saveable,
                                checkpoint_dots, dots_with_no_batch_dims_saveable,
                                save_only_these_names, save_anything_except_these_names,
                                save_any_names_but_these, save_from_both_policies)

__all__ = ["everything_saveable", "nothing_saveable", "dots_saveable", "checkpoint_dots",
           "dots_with_no_batch_dims_saveable", "save_only_these_names",
           "save_anything_except_these_names", "save_any_names_but_these",
           "save_from_both_policies"]
