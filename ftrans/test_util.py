"""``ftrans.test_util``: the module name JAX users import ``check_grads`` from
(``from jax.test_util import check_grads``).  :func:`check_grads` is the same function
object as :func:`ftrans.testing.check_grads`."""
from .testing import check_grads

__all__ = ["check_grads"]
