"""JAX's ``jax.ad_checkpoint`` names: ``checkpoint`` (``remat``), ``checkpoint_name``
(tag a value for a policy), ``checkpoint_policies``, and ``saved_residuals`` /
``print_saved_residuals`` (what reverse mode keeps, to measure a policy's memory).

>>> import ftrans, ftrans.numpy as fnp, numpy as np
>>> from ftrans.ad_checkpoint import checkpoint_name, print_saved_residuals
>>> def f(x):
...     h = checkpoint_name(fnp.sin(x), "h")
...     return fnp.sum(fnp.cos(h))
>>> g = ftrans.checkpoint(f, policy=ftrans.checkpoint_policies.save_only_these_names("h"))
>>> print_saved_residuals(g, np.ones(3))
float64[3]  saved by checkpoint
float64[3]  saved by checkpoint
total: 48 bytes in 2 residuals
"""
from .transforms.checkpoint import checkpoint, remat
from .primitives.name import checkpoint_name
from .transforms._remat import saved_residuals, print_saved_residuals
from . import checkpoint_policies

__all__ = ["checkpoint", "remat", "checkpoint_name", "checkpoint_policies",
           "saved_residuals", "print_saved_residuals"]
