"""ftrans: composable functional automatic differentiation for NumPy code.

>>> import ftrans, ftrans.numpy as fnp
>>> ftrans.grad(lambda x: fnp.sum(fnp.sin(x) ** 2))(fnp.ones(3))  # doctest: +SKIP

The public API (DESIGN.md): ``grad``, ``value_and_grad``, ``vjp``, ``jvp``, ``jacfwd``,
``jacrev``/``jacobian``, ``hessian``, ``jit``, ``make_ir``, ``disable_jit``,
``stop_gradient``, ``tree_util``, ``float0``,
``testing.check_grads``, ``config`` (``config.update("debug_nans", True)``) and
``debug_nans`` (its context manager), ``nn`` (functional neural-network operations,
imported on first access).  ``ftrans.numpy`` is imported lazily on first attribute
access so that ``import ftrans`` stays fast.
"""
from __future__ import annotations

from types import ModuleType

from . import tree_util
from .core import float0, EscapedTracerError, TracerArrayConversionError
from .transforms import (jvp, vjp, grad, value_and_grad, jacfwd, jacrev, jacobian, hessian,
                         hvp, vmap, linearize, custom_jvp, custom_vjp, checkpoint, remat,
                         jit, make_ir, disable_jit)
from .core.ir import ConcretizationError
from .primitives import stop_gradient
from . import config
from .config import debug_nans
from . import numpy  # noqa: F401  (installs the Tracer operators)
from . import lax  # noqa: F401  (control-flow primitives: cond, while, scan)
# JAX's names for JAX users' code (issue 25): jax.tree, flatten_util, test_util, ...
from . import tree, flatten_util, test_util  # noqa: F401
from ._runtime import block_until_ready, typeof

__version__ = "0.1.0"

__all__ = ["grad", "value_and_grad", "vjp", "jvp", "vmap", "jacfwd", "jacrev", "jacobian", "hessian", "hvp", "linearize", "custom_jvp", "custom_vjp",
           "checkpoint", "remat", "jit", "make_ir", "disable_jit", "ConcretizationError",
           "stop_gradient", "tree_util", "float0", "EscapedTracerError",
           "TracerArrayConversionError", "numpy", "testing", "random", "nn", "optim", "lax", "config",
           "debug_nans",
           "tree", "flatten_util", "test_util", "block_until_ready", "typeof"]

# JAX's names (issue 25, items 5-7): make_jaxpr, checkpoint policies and names
from .transforms import make_jaxpr  # noqa: E402
from . import checkpoint_policies, ad_checkpoint  # noqa: E402
__all__ += ["make_jaxpr", "checkpoint_policies", "ad_checkpoint"]


def __getattr__(name: str) -> ModuleType:
    # imported on first access: ``testing`` pulls in SciPy-free helpers only when used,
    # ``dask`` the Dask library, ``random`` the PRNG keys and samplers, ``nn`` the
    # neural-network functions (their numba kernels load on first use)
    if name in ("testing", "dask", "random", "nn", "optim"):
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError(f"module 'ftrans' has no attribute {name!r}")

# issue 20: host functions under transforms; SciPy's integrate/optimize (ftrans.scipy)
from .primitives import pure_callback, ShapeDtypeStruct  # noqa: E402
from .transforms import custom_root  # noqa: E402
__all__ += ["pure_callback", "ShapeDtypeStruct", "custom_root"]

# issue 21: execution-time printing (ftrans.debug) and shape evaluation
from . import debug  # noqa: E402
from .transforms import eval_shape  # noqa: E402
__all__ += ["debug", "eval_shape"]
