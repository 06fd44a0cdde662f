"""Transforms: one file per transform (jvp, vjp/grad, jacobians, vmap, jit ...)."""
from .jvp import jvp, JVPTrace, JVPTracer
from .vjp import vjp, grad, value_and_grad, VJPTrace, VJPTracer
from .jacobians import jacfwd, jacrev, jacobian, hessian, hvp
from .vmap import vmap, BatchTrace, BatchTracer
from .linearize import linearize
from .custom import custom_jvp, custom_vjp
from .checkpoint import checkpoint, remat
from .jit import jit, make_ir, disable_jit
from ._stages import make_jaxpr, Traced, Lowered, Compiled
from ._implicit import custom_root
from .eval_shape import eval_shape
