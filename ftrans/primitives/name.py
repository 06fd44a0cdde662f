"""``checkpoint_name``: the identity, tagging a value with a name for checkpoint policies.

``checkpoint_name(x, name)`` returns ``x``; in a staged program it is one equation
``name[name=...]``, so that a policy such as
``ftrans.checkpoint_policies.save_only_these_names("h1")`` can choose to keep that value
for the backward pass of ``ftrans.checkpoint`` (JAX's ``jax.ad_checkpoint.checkpoint_name``).
Its rules are the identity's: the tangent and the cotangent pass through unchanged, the
batch axis stays where it is, and the compiler lowers it to a copy-free identity.
"""
from __future__ import annotations

from ..core import Primitive, ShapedArray, zero
from ..core.pytree import tree_map
from ._rules import batch_unary_same_dim

__all__ = ["checkpoint_name"]

name_p = Primitive("name")


@name_p.def_impl
def _name_impl(x, *, name):
    return x


@name_p.def_abstract_eval
def _name_abstract_eval(x, *, name):
    return ShapedArray(x.shape, x.dtype)


@name_p.def_jvp
def _name_jvp(primals, tangents, *, name):
    t = tangents[0]
    return name_p.bind(primals[0], name=name), (zero if t is zero else t)


@name_p.def_vjp
def _name_vjp(ct, ans, primals, needs, *, name):
    return [ct if needs[0] else None]


name_p.batch = batch_unary_same_dim(name_p)
name_p.lowering = {"kind": "elementwise", "numba": "{0}", "cuda": "{0}", "complex": True,
                   "cast": "out"}


def checkpoint_name(x, name):
    """``x``, tagged ``name`` for checkpoint policies (JAX's ``checkpoint_name``).

    Parameters
    ----------
    x : array, tracer or pytree of them
    name : str

    Returns
    -------
    ``x`` (each array leaf through the ``name`` primitive).

    Raises
    ------
    TypeError
        ``name`` not a string.
    """
    if not isinstance(name, str):
        raise TypeError(f"checkpoint_name: name must be a str, got {type(name).__name__}")
    return tree_map(lambda a: name_p.bind(a, name=name), x)
