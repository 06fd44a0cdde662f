"""The core primitives as values, and their ops (the ``bind`` wrappers rules call).

Rules in one file call the ops of others: elementwise rules need ``where`` and the
comparisons, every elementwise VJP needs ``reduce_sum``/``reshape`` (``unbroadcast``) and
``convert_element_type``, the structural VJPs need ``gather`` ... .  Declaring the
primitive objects and their ops here, below every rules file, keeps the imports
one-way (as in JAX's Autodidax, where a primitive is a value declared before its rules):

    core <- optable <- _base <- _rules <- elementwise, logic, select, convert, structural
                                       <- indexing <- structural

Each rules file imports its primitives from here and attaches impl, abstract
evaluation, JVP, VJP, batching rule and lowering to them (one file per idea); the ops
are re-exported there, so ``primitives.structural.reshape`` and ``primitives.reshape``
are these functions.  The operation table's rows (``optable.ROWS``) are declared by
one loop.
"""
from __future__ import annotations

import numpy as np

from ..core import Primitive
from ..core.dtypes import as_numpy_dtype
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.trace import Tracer
from ..kernels import foreign_array
from ..typing import Array, ArrayLike, PyTree
from .optable import ROWS, CUSTOM

__all__ = ["ROW_PRIMITIVES", "ROW_OPS"]


def _op(p, doc=None):
    bind = p.bind

    def op(*args):
        return bind(*args)
    op.__name__ = p.name
    op.__doc__ = doc or f"Apply the ``{p.name}`` primitive (NumPy broadcasting and promotion)."
    return op


# ------------------------------------------------------------------ operation-table rows
#: name -> Primitive, for every row of the operation table (rules: elementwise.py)
ROW_PRIMITIVES = {op.name: Primitive(op.name, differentiable=op.differentiable,
                                     multiple_results=op.outputs > 1) for op in ROWS}
#: name -> op (``exp``, ``sin``, ``copysign`` ...)
ROW_OPS = {op.name: _op(ROW_PRIMITIVES[op.name],
                        f"{op.doc} Elementwise primitive ``{op.name}`` (NumPy broadcasting "
                        f"and promotion)." if op.doc else None) for op in ROWS}
for _row in ROWS:
    ROW_PRIMITIVES[_row.name].facets = _row
globals().update({k + "_p": v for k, v in ROW_PRIMITIVES.items()})
globals().update(ROW_OPS)
del _row

# ------------------------------------------------------ hand-written elementwise (rules:
# elementwise.py): branch conventions, symbolic zeros, integer exponents
neg_p = Primitive("neg")
conj_p = Primitive("conj")
add_p = Primitive("add")
sub_p = Primitive("sub")
mul_p = Primitive("mul")
div_p = Primitive("div")
pow_p = Primitive("pow")
integer_pow_p = Primitive("integer_pow")
abs_p = Primitive("abs")
sign_p = Primitive("sign")
maximum_p = Primitive("maximum")
minimum_p = Primitive("minimum")
neg, add, sub, mul, div, pow, abs, sign, maximum, minimum = (
    _op(p) for p in (neg_p, add_p, sub_p, mul_p, div_p, pow_p, abs_p, sign_p, maximum_p,
                     minimum_p))
conj_op = _op(conj_p)
for _row in CUSTOM:  # their names and torch facets (the rules are hand-written)
    globals()[_row.name + "_p"].facets = _row
del _row


def integer_pow(x: ArrayLike, n: int) -> Array:
    """``x ** n`` for a Python int ``n`` (exact derivative ``n * x**(n-1)``, also at 0)."""
    return integer_pow_p.bind(x, n=int(n))


# --------------------------------------- comparisons, logic, rounding (rules: logic.py)
def _nondiff(name, np_name, nargs):
    p = Primitive(name, differentiable=False)
    bind = p.bind

    def op(*args):
        if len(args) != nargs:
            raise TypeError(f"{name} takes {nargs} argument(s), got {len(args)}")
        return bind(*args)
    op.__name__ = name
    op.__doc__ = f"Elementwise ``numpy.{np_name}``; boolean result, no derivative."
    op.np_name = np_name
    return p, op


eq_p, eq = _nondiff("eq", "equal", 2)
ne_p, ne = _nondiff("ne", "not_equal", 2)
lt_p, lt = _nondiff("lt", "less", 2)
le_p, le = _nondiff("le", "less_equal", 2)
gt_p, gt = _nondiff("gt", "greater", 2)
ge_p, ge = _nondiff("ge", "greater_equal", 2)
logical_and_p, logical_and = _nondiff("logical_and", "logical_and", 2)
logical_or_p, logical_or = _nondiff("logical_or", "logical_or", 2)
logical_xor_p, logical_xor = _nondiff("logical_xor", "logical_xor", 2)
logical_not_p, logical_not = _nondiff("logical_not", "logical_not", 1)
isfinite_p, isfinite = _nondiff("isfinite", "isfinite", 1)
isnan_p, isnan = _nondiff("isnan", "isnan", 1)
isinf_p, isinf = _nondiff("isinf", "isinf", 1)


def _zero_derivative(name):
    p = Primitive(name)
    op = _op(p, f"Elementwise ``numpy.{name}``; derivative 0 (where it exists).")
    return p, op


floor_p, floor = _zero_derivative("floor")
ceil_p, ceil = _zero_derivative("ceil")
round_p, round = _zero_derivative("round")
floor_divide_p = Primitive("floor_divide")


def floor_divide(x, y):
    """Elementwise ``numpy.floor_divide``; derivative 0 (where it exists)."""
    return floor_divide_p.bind(x, y)


# ------------------------------------------------------------- select (rules: select.py)
select_p = Primitive("select")


def where(condition, x, y):
    """Elementwise ``x if condition else y`` with NumPy broadcasting and promotion."""
    return select_p.bind(condition, x, y)


# -------------------------------------------------- conversions (rules: convert.py)
convert_element_type_p = Primitive("convert_element_type")
real_p = Primitive("real")
imag_p = Primitive("imag")
stop_gradient_p = Primitive("stop_gradient")
stop_backward_p = Primitive("stop_backward")


def convert_element_type(x, new_dtype):
    """``x`` converted to ``new_dtype`` (the real part when converting complex to real).

    Returns ``x`` itself when it already has that dtype.
    """
    new_dtype = as_numpy_dtype(new_dtype)
    d = getattr(x, "dtype", None)
    if d is not None and (d if isinstance(d, np.dtype) else as_numpy_dtype(d)) == new_dtype:
        return x
    return convert_element_type_p.bind(x, new_dtype=new_dtype)


def real(x):
    """Real part (``numpy.real``); the identity on real input."""
    return real_p.bind(x)


def imag(x):
    """Imaginary part (``numpy.imag``); zeros on real input."""
    return imag_p.bind(x)


def stop_gradient(x: PyTree) -> PyTree:
    """The identity on values; its derivative is zero in every transform.

    Parameters
    ----------
    x : PyTree
        An array, a Python number or a pytree of them (each leaf is stopped).

    Returns
    -------
    PyTree
        ``x``'s values, with ``x``'s structure, shapes and dtypes, as constants for
        every enclosing transform.

    Raises
    ------
    TypeError
        For a leaf that is not an array or a number (a string, ...), as JAX does.

    Notes
    -----
    As ``jax.lax.stop_gradient``
    (https://docs.jax.dev/en/latest/_autosummary/jax.lax.stop_gradient.html).

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> f = lambda x: x * ftrans.stop_gradient(x)      # d/dx = stop_gradient(x)
    >>> ftrans.grad(f)(3.0)
    array(3.)
    """
    if isinstance(x, (Tracer, np.ndarray)):
        return stop_gradient_p.bind(x)
    leaves, tree = tree_flatten(x)
    for leaf in leaves:
        if not (isinstance(leaf, (Tracer, np.ndarray, np.generic, bool, int, float, complex))
                or hasattr(leaf, "__cuda_array_interface__") or foreign_array(leaf)):
            raise TypeError(
                f"stop_gradient: argument {leaf!r} of type {type(leaf).__name__} is not a "
                "valid array type; pass an array, a Python number or a pytree of them")
    return tree_unflatten(tree, [stop_gradient_p.bind(leaf) for leaf in leaves])


def stop_backward(x):
    """The identity, cut from reverse mode only: zero cotangent, the tangent passes.

    PyTorch's grad mode: an operation run under ``torch.no_grad()`` is not recorded for
    backward (``torch.func.grad``, ``vjp`` and ``jacrev`` see a constant), while
    forward-mode AD (``torch.func.jvp``, ``jacfwd``) is not affected by grad mode.
    ``ftrans.compat``'s transforms stop the values a user's ``no_grad`` block makes with
    this primitive.  Its JVP and VJP are therefore *not* each other's transpose, by
    definition; use :func:`stop_gradient` for a constant in every transform.

    Parameters
    ----------
    x : array
        Any shape and dtype.

    Returns
    -------
    array
        ``x``'s values (same shape and dtype).  Its JVP is ``stop_backward(t)`` for a
        tangent ``t`` (forward mode goes through; a reverse mode around it does not), its
        VJP is zero.

    Notes
    -----
    PyTorch, "Locally disabling gradient computation" and the ``torch.func`` UX
    limitations page ("grad ... respects inner torch.no_grad"; forward-mode AD is not
    disabled by grad mode): https://pytorch.org/docs/stable/notes/autograd.html

    Examples
    --------
    >>> import ftrans
    >>> from ftrans.primitives import stop_backward
    >>> f = lambda x: stop_backward(x * x) * x
    >>> ftrans.grad(f)(3.0)                       # only the outer factor: 3 * 3
    array(9.)
    >>> ftrans.jvp(f, (3.0,), (1.0,))[1]           # forward mode: d(x^3)/dx = 27
    array(27.)
    """
    return stop_backward_p.bind(x)


# ------------------------------------------------------- shapes (rules: structural.py)
reshape_p = Primitive("reshape")
transpose_p = Primitive("transpose")
broadcast_to_p = Primitive("broadcast_to")
squeeze_p = Primitive("squeeze")
expand_dims_p = Primitive("expand_dims")
reduce_sum_p = Primitive("reduce_sum")
concatenate_p = Primitive("concatenate")


def reshape(x, new_shape):
    """``x`` with shape ``new_shape`` (a tuple of non-negative ints of equal product)."""
    new_shape = tuple(new_shape)
    if x.shape == new_shape:
        return x
    return reshape_p.bind(x, new_shape=new_shape)


def transpose(x, perm):
    """Permute the axes of ``x``: output axis ``i`` is input axis ``perm[i]``."""
    perm = tuple(perm)
    if perm == tuple(range(len(perm))):
        return x
    return transpose_p.bind(x, perm=perm)


def broadcast_to(x, shape):
    """``x`` broadcast to ``shape`` by NumPy's rules (a read-only view when concrete)."""
    shape = tuple(shape)
    if x.shape == shape:
        return x
    return broadcast_to_p.bind(x, shape=shape)


def squeeze(x, dims):
    """Remove the size-1 axes ``dims`` (a tuple of non-negative ints)."""
    return squeeze_p.bind(x, dims=tuple(dims)) if dims else x


def expand_shape(shape, dims):
    """``shape`` with size-1 axes inserted at the (sorted, non-negative) ``dims``."""
    out = list(shape)
    for d in sorted(dims):
        out.insert(d, 1)
    return tuple(out)


def expand_dims(x, dims):
    """Insert size-1 axes at positions ``dims`` of the result (non-negative ints)."""
    return expand_dims_p.bind(x, dims=tuple(dims)) if dims else x


def reduce_sum(x, axes):
    """Sum over ``axes`` (a tuple of non-negative ints), dropping them."""
    return reduce_sum_p.bind(x, axes=tuple(axes))


def concatenate(xs, axis):
    """Join arrays of equal rank along the non-negative ``axis``."""
    xs = tuple(xs)
    return concatenate_p.bind(*xs, axis=axis)
