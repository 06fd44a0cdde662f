"""The primitive table: one or more rows per registered primitive.

Each row (:class:`Case`) names a primitive, a function applying it through its op
from :mod:`ftrans.primitives`, a NumPy reference, argument specs (shape + input
domain), and what the primitive supports (complex, differentiability).  The test
modules in this directory are parametrized over :data:`CASES`, and
``test_table_covers_every_primitive`` fails when a registered primitive has no row.

Input domains keep finite-difference checks away from non-differentiable points
and branch cuts (``abs`` away from 0, ``maximum`` away from ties, ``log`` on
positive reals, ``arcsin`` inside (-1, 1), ``floor`` away from integers ...).
Non-differentiable points themselves are tested in ``test_nondiff_points.py``.

This module is not collected by pytest (its name does not start with ``test_``).
"""
from __future__ import annotations

import dataclasses
from typing import Callable, Optional

import numpy as np

import ftrans  # noqa: F401  (registers every primitive)
import ftrans.primitives as P
import ftrans.primitives.bitwise  # noqa: F401  (P.bitwise: the integer functions)

F64, F32, C128, C64 = (np.dtype(np.float64), np.dtype(np.float32), np.dtype(np.complex128),
                       np.dtype(np.complex64))


# ---------------------------------------------------------------------------------
# input domains: gen(rng, shape, dtype) -> np.ndarray of that shape and dtype
# ---------------------------------------------------------------------------------
def _finish(re, im, rng, shape, dtype):
    dtype = np.dtype(dtype)
    if dtype.kind == "c":
        return np.asarray(re + 1j * im(rng, shape), dtype)
    return np.asarray(re, dtype)


def U(lo=-2.0, hi=2.0, im=None):
    """Uniform on [lo, hi]; complex: real part on [lo, hi], imaginary on ``im`` (default
    the same interval)."""
    im_lo, im_hi = im if im is not None else (lo, hi)

    def gen(rng, shape, dtype):
        return _finish(rng.uniform(lo, hi, shape),
                       lambda r, s: r.uniform(im_lo, im_hi, s), rng, shape, dtype)
    return gen


def Away(lo=0.3, hi=2.0):
    """Magnitude in [lo, hi] with a random sign (real and imaginary parts alike): keeps
    values away from 0."""
    def part(rng, shape):
        return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)

    def gen(rng, shape, dtype):
        return _finish(part(rng, shape), part, rng, shape, dtype)
    return gen


def Lattice(step=0.5, offset=0.0, n=4, jitter=0.0):
    """``offset + k * step`` for integers ``k`` in [-n, n), plus uniform jitter: two
    lattices with offsets differing by ``step/2`` never come closer than
    ``step/2 - 2*jitter`` (no ties for maximum/minimum, even when broadcast)."""
    def part(rng, shape):
        return offset + step * rng.integers(-n, n, shape) + rng.uniform(-jitter, jitter, shape)

    def gen(rng, shape, dtype):
        return _finish(part(rng, shape), part, rng, shape, dtype)
    return gen


def OffInteger():
    """Integers plus a fraction in [0.1, 0.4] of either sign: away from the jumps of
    floor/ceil/round (and from the .5 ties of round)."""
    def gen(rng, shape, dtype):
        x = rng.integers(-3, 4, shape) + rng.uniform(0.1, 0.4, shape) * rng.choice([-1, 1], shape)
        return np.asarray(x, dtype)
    return gen


def Distinct(spacing=0.5):
    """A random permutation of well-separated values (no ties for max/min/argmax)."""
    def gen(rng, shape, dtype):
        n = int(np.prod(shape, dtype=np.int64))
        x = (rng.permutation(n) - n / 2) * spacing + rng.uniform(-0.1, 0.1, n) * spacing
        return np.asarray(x.reshape(shape), dtype)
    return gen


def Specials():
    """Uniform values with some replaced by nan, inf and -inf (for isnan/isinf/isfinite);
    complex: also some with an infinite or nan imaginary part."""
    def gen(rng, shape, dtype):
        dtype = np.dtype(dtype)
        x = U()(rng, shape, dtype)
        flat = x.reshape(-1)
        specials = [np.nan, np.inf, -np.inf]
        if dtype.kind == "c":
            specials += [complex(1.0, np.inf), complex(-2.0, np.nan)]
        pick = rng.integers(0, len(specials) + 2, flat.size)
        for k, v in enumerate(specials):
            flat[pick == k + 2] = v
        return x
    return gen


def Bool(p=0.5):
    def gen(rng, shape, dtype):
        return rng.random(shape) < p
    return gen


def Ints(lo, hi):
    def gen(rng, shape, dtype):
        return rng.integers(lo, hi, shape)
    return gen


@dataclasses.dataclass(frozen=True)
class Arg:
    """One argument: a shape and a domain.  ``kind`` is ``"x"`` for inexact arguments
    (they take the dtype under test), ``"bool"``/``"int"`` for the others."""
    shape: tuple
    gen: Callable = U()
    kind: str = "x"

    def make(self, rng, dtype):
        if self.kind == "x":
            return self.gen(rng, self.shape, dtype)
        return self.gen(rng, self.shape, None)

    def with_shape(self, shape):
        return dataclasses.replace(self, shape=tuple(shape))


@dataclasses.dataclass
class Variant:
    """Other shapes for a row (0-d, empty): its own fn/ref when the params depend on
    the shape (``None``: the row's)."""
    label: str
    args: tuple
    fn: Optional[Callable] = None
    ref: Optional[Callable] = None


@dataclasses.dataclass
class Case:
    """One row of the table.

    name            the primitive's registered name
    fn, ref         ``fn(*args)`` applies the primitive through its op; ``ref(*args)``
                    is the NumPy reference on the same (NumPy) arguments
    args            argument specs (:class:`Arg`)
    complex         complex128 inputs are defined (values and derivatives)
    differentiable  the primitive's ``differentiable`` flag (checked against it)
    fd              the derivative is the finite-difference one (False only for
                    stop_gradient and stop_backward, whose derivatives are cut by
                    definition)
    adjoint         the VJP is the adjoint of the JVP (False only for stop_backward:
                    its tangent passes, its cotangent is zero, by definition)
    kind            "unary"/"binary"/"ternary" for elementwise primitives (broadcasting
                    tests and automatic 0-d/empty variants), else "other"
    variants        shape variants (0-d, empty); automatic for elementwise rows
    dtypes          explicit dtypes under test (default float64, float32 [, complex128])
    keeps_precision float32 in -> float32 (or complex64) out; False for conversions
    """
    name: str
    fn: Callable
    ref: Callable
    args: tuple
    complex: bool = False
    differentiable: bool = True
    fd: bool = True
    adjoint: bool = True
    kind: str = "other"
    variant: str = ""
    variants: tuple = ()
    dtypes: Optional[tuple] = None
    keeps_precision: bool = True
    order: int = 2

    @property
    def id(self):
        return f"{self.name}[{self.variant}]" if self.variant else self.name

    def test_dtypes(self):
        if self.dtypes is not None:
            return tuple(np.dtype(d) for d in self.dtypes)
        return (F64, F32) + ((C128,) if self.complex else ())

    def make_args(self, rng, dtype, args=None):
        return [a.make(rng, dtype) for a in (args if args is not None else self.args)]

    def all_variants(self):
        """The row's shape variants, automatic ones for elementwise rows."""
        if self.kind in ("unary", "binary", "ternary"):
            out = []
            for label, shape in (("0d", ()), ("empty", (0,)), ("empty2d", (2, 0))):
                out.append(Variant(label, tuple(a.with_shape(shape) for a in self.args)))
            return tuple(out) + tuple(self.variants)
        return tuple(self.variants)


CASES: list[Case] = []


def case(name, fn, ref, *args, **kw):
    c = Case(name, fn, ref, tuple(args), **kw)
    CASES.append(c)
    return c


# ---------------------------------------------------------------------------------
# elementwise unary
# ---------------------------------------------------------------------------------
S = (3, 4)



def _domain(spec):
    """The generator of an operation-table domain spec (optable.Op.domain)."""
    kind, *a = spec
    if kind == "U":
        return U(a[0], a[1], im=(a[2], a[3]) if len(a) == 4 else None)
    if kind == "away":
        return Away(*a)
    if kind == "offint":
        return OffInteger()
    if kind == "lattice":
        return Lattice(a[0], a[1], jitter=0.05)
    if kind == "special":
        return Specials()
    raise ValueError(f"unknown domain {spec!r}")


def _reference(op):
    """The NumPy (or SciPy) function a row's kernel names: the independent reference."""
    mod, _, name = op.kernel.rpartition(".")
    if mod == "np":
        return getattr(np, name)
    import scipy.special
    return getattr(scipy.special, name)


# every row of the operation table (ftrans/primitives/optable.py), from its own domain
for _op in P.optable.ROWS:
    _args = tuple(Arg(S, Ints(d[1], d[2]), "int") if d[0] == "int" else Arg(S, _domain(d))
                  for d in _op.domain)
    _fn, _ref = getattr(P, _op.name), _reference(_op)
    if _op.outputs > 1:  # (frexp, modf) one array: result 0 + result 1 / 8, in x's dtype
        _fn = (lambda f: lambda x: P.add(f(x)[0], P.mul(
            P.convert_element_type(f(x)[1], x.dtype), 0.125)))(_fn)
        _ref = (lambda f: lambda x: f(x)[0] + f(x)[1].astype(x.dtype) * np.asarray(
            0.125, x.dtype))(_ref)
    case(_op.name, _fn, _ref, *_args,
         complex=_op.complex == "holomorphic", differentiable=_op.differentiable,
         kind="unary" if _op.arity == 1 else "binary")

case("neg", P.neg, np.negative, Arg(S), complex=True, kind="unary")
case("conj", P.conj, np.conj, Arg(S), complex=True, kind="unary")
case("abs", P.abs, np.abs, Arg(S, Away(0.2, 2)), complex=True, kind="unary")
# sign of a complex number is z/|z| (NumPy 2), which is not locally constant.
case("sign", P.sign, np.sign, Arg(S, Away(0.2, 2)), complex=True, kind="unary")
case("floor", P.floor, np.floor, Arg(S, OffInteger()), kind="unary")
case("ceil", P.ceil, np.ceil, Arg(S, OffInteger()), kind="unary")
case("round", P.round, np.round, Arg(S, OffInteger()), kind="unary")
# x off the integers and y = +-1: x / y stays away from the jumps of floor_divide.
case("floor_divide", P.floor_divide, np.floor_divide, Arg(S, OffInteger()),
     Arg(S, Lattice(2.0, 1.0, n=1)), kind="binary")

for _n, _dom in ((2, U()), (3, U()), (1, U()), (0, U()), (-2, Away(0.5, 2)), (-1, Away(0.5, 2))):
    case("integer_pow", (lambda n: lambda x: P.integer_pow(x, n))(_n),
         (lambda n: lambda x: np.power(x, n))(_n), Arg(S, _dom), complex=True, kind="unary",
         variant=f"n={_n}")

# ---------------------------------------------------------------------------------
# elementwise binary / ternary
# ---------------------------------------------------------------------------------
case("add", P.add, np.add, Arg(S), Arg(S), complex=True, kind="binary")
case("sub", P.sub, np.subtract, Arg(S), Arg(S), complex=True, kind="binary")
case("mul", P.mul, np.multiply, Arg(S), Arg(S), complex=True, kind="binary")
case("div", P.div, np.divide, Arg(S), Arg(S, Away(0.5, 2)), complex=True, kind="binary")
case("pow", P.pow, np.power, Arg(S, U(0.5, 2.0, im=(-0.5, 0.5))),
     Arg(S, U(-1.5, 1.5, im=(-0.5, 0.5))), complex=True, kind="binary")
# x on the lattice 0.25 + k/2, y on k/2 (jitter 0.05): |x - y| >= 0.15, never a tie.
case("maximum", P.maximum, np.maximum, Arg(S, Lattice(0.5, 0.25, jitter=0.05)),
     Arg(S, Lattice(0.5, 0.0, jitter=0.05)), kind="binary")
case("minimum", P.minimum, np.minimum, Arg(S, Lattice(0.5, 0.25, jitter=0.05)),
     Arg(S, Lattice(0.5, 0.0, jitter=0.05)), kind="binary")
case("select", P.where, np.where, Arg(S, Bool(), "bool"), Arg(S), Arg(S), complex=True,
     kind="ternary")

# ---------------------------------------------------------------------------------
# comparisons, logical operations, predicates (no derivative)
# ---------------------------------------------------------------------------------
_TIES = Lattice(0.5, 0.0, n=2)  # small lattice: equal elements are frequent
for _name, _ref, _cplx in (("eq", np.equal, True), ("ne", np.not_equal, True),
                           ("lt", np.less, False), ("le", np.less_equal, False),
                           ("gt", np.greater, False), ("ge", np.greater_equal, False)):
    case(_name, getattr(P, _name), _ref, Arg(S, _TIES), Arg(S, _TIES), complex=_cplx,
         differentiable=False, kind="binary")
for _name in ("logical_and", "logical_or", "logical_xor"):
    case(_name, getattr(P, _name), getattr(np, _name), Arg(S, _TIES), Arg(S, _TIES),
         complex=True, differentiable=False, kind="binary")
    case(_name, getattr(P, _name), getattr(np, _name), Arg(S, Bool(), "bool"),
         Arg(S, Bool(), "bool"), differentiable=False, kind="binary", variant="bool",
         dtypes=("float64",))
case("logical_not", P.logical_not, np.logical_not, Arg(S, _TIES), complex=True,
     differentiable=False, kind="unary")
for _name in ("isfinite", "isnan", "isinf"):
    case(_name, getattr(P, _name), getattr(np, _name), Arg((4, 5), Specials()), complex=True,
         differentiable=False, kind="unary")

# ---------------------------------------------------------------------------------
# conversions
# ---------------------------------------------------------------------------------
_SWAP = {F64: F32, F32: F64, C128: C64, C64: C128}
case("convert_element_type", lambda x: P.convert_element_type(x, _SWAP[np.dtype(x.dtype)]),
     lambda x: x.astype(_SWAP[x.dtype]), Arg(S), complex=True, variant="swap_precision",
     keeps_precision=False)
case("convert_element_type", lambda x: P.convert_element_type(x, np.complex128),
     lambda x: x.astype(np.complex128), Arg(S), variant="to_complex128", keeps_precision=False)
case("convert_element_type", lambda x: P.convert_element_type(x, np.float64),
     lambda x: x.real.astype(np.float64), Arg(S), variant="complex_to_real",
     dtypes=("complex128", "complex64"), keeps_precision=False)
case("convert_element_type", lambda x: P.convert_element_type(x, np.int32),
     lambda x: x.astype(np.int32), Arg(S, OffInteger()), variant="to_int32",
     keeps_precision=False)
case("convert_element_type", lambda x, i: P.mul(x, P.convert_element_type(i, x.dtype)),
     lambda x, i: x * i.astype(x.dtype), Arg(S), Arg(S, Ints(-3, 4), "int"),
     complex=True, variant="from_int")
case("real", P.real, np.real, Arg(S), complex=True, kind="unary")
case("imag", P.imag, np.imag, Arg(S), complex=True, kind="unary")
# stop_gradient: the identity whose derivative is 0 *by definition* (not the FD one).
case("stop_gradient", P.stop_gradient, lambda x: x, Arg(S), complex=True, fd=False,
     kind="unary")
# stop_backward: the identity cut from reverse mode only (torch.no_grad under compat.func)
case("stop_backward", P.stop_backward, lambda x: x, Arg(S), complex=True, fd=False,
     adjoint=False, kind="unary")
# checkpoint_name: the identity (a tag for checkpoint policies)
case("name", lambda x: P.checkpoint_name(x, "h"), lambda x: x, Arg(S), complex=True)

# ---------------------------------------------------------------------------------
# structural (linear) primitives
# ---------------------------------------------------------------------------------
case("reshape", lambda x: P.reshape(x, (2, 6)), lambda x: x.reshape(2, 6), Arg(S),
     complex=True, variants=(
         Variant("0d", (Arg(()),), lambda x: P.reshape(x, (1, 1)), lambda x: x.reshape(1, 1)),
         Variant("empty", (Arg((2, 0)),), lambda x: P.reshape(x, (0, 5)),
                 lambda x: x.reshape(0, 5)),
     ))
case("transpose", lambda x: P.transpose(x, (2, 0, 1)), lambda x: x.transpose(2, 0, 1),
     Arg((2, 3, 4)), complex=True, variants=(
         Variant("empty", (Arg((2, 0, 3)),), lambda x: P.transpose(x, (1, 2, 0)),
                 lambda x: x.transpose(1, 2, 0)),
     ))
case("broadcast_to", lambda x: P.broadcast_to(x, (2, 3, 4)),
     lambda x: np.broadcast_to(x, (2, 3, 4)), Arg((3, 1)), complex=True, variants=(
         Variant("0d", (Arg(()),), lambda x: P.broadcast_to(x, (2, 3)),
                 lambda x: np.broadcast_to(x, (2, 3))),
         Variant("empty", (Arg((0, 1)),), lambda x: P.broadcast_to(x, (0, 3)),
                 lambda x: np.broadcast_to(x, (0, 3))),
         Variant("to_empty", (Arg((1,)),), lambda x: P.broadcast_to(x, (2, 0)),
                 lambda x: np.broadcast_to(x, (2, 0))),
     ))
case("squeeze", lambda x: P.squeeze(x, (1, 3)), lambda x: x.squeeze((1, 3)),
     Arg((3, 1, 4, 1)), complex=True, variants=(
         Variant("to_0d", (Arg((1,)),), lambda x: P.squeeze(x, (0,)), lambda x: x.squeeze(0)),
         Variant("empty", (Arg((0, 1)),), lambda x: P.squeeze(x, (1,)), lambda x: x.squeeze(1)),
     ))
case("expand_dims", lambda x: P.expand_dims(x, (0, 2)), lambda x: np.expand_dims(x, (0, 2)),
     Arg(S), complex=True, variants=(
         Variant("0d", (Arg(()),), lambda x: P.expand_dims(x, (0,)),
                 lambda x: np.expand_dims(x, 0)),
         Variant("empty", (Arg((0,)),), lambda x: P.expand_dims(x, (1,)),
                 lambda x: np.expand_dims(x, 1)),
     ))
case("concatenate", lambda a, b, c: P.concatenate([a, b, c], 0),
     lambda a, b, c: np.concatenate([a, b, c], 0), Arg((2, 3)), Arg((4, 3)), Arg((1, 3)),
     complex=True, variants=(
         Variant("empty", (Arg((0, 3)), Arg((2, 3))), lambda a, b: P.concatenate([a, b], 0),
                 lambda a, b: np.concatenate([a, b], 0)),
         Variant("empty_axis1", (Arg((2, 0)), Arg((2, 0))),
                 lambda a, b: P.concatenate([a, b], 1),
                 lambda a, b: np.concatenate([a, b], 1)),
     ), variant="axis0")
case("concatenate", lambda a, b: P.concatenate([a, b], 1),
     lambda a, b: np.concatenate([a, b], 1), Arg((2, 1)), Arg((2, 3)), complex=True,
     variant="axis1")
case("reduce_sum", lambda x: P.reduce_sum(x, (0, 2)), lambda x: np.sum(x, axis=(0, 2)),
     Arg((3, 4, 5)), complex=True, variant="axes=(0,2)", variants=(
         Variant("0d", (Arg(()),), lambda x: P.reduce_sum(x, ()),
                 lambda x: np.sum(x, axis=())),
         Variant("empty_reduced", (Arg((2, 0)),), lambda x: P.reduce_sum(x, (1,)),
                 lambda x: np.sum(x, axis=1)),
         Variant("empty_kept", (Arg((2, 0)),), lambda x: P.reduce_sum(x, (0,)),
                 lambda x: np.sum(x, axis=0)),
     ))
case("reduce_sum", lambda x: P.reduce_sum(x, (0, 1)), lambda x: np.sum(x), Arg(S),
     complex=True, variant="all")

# ---------------------------------------------------------------------------------
# other reductions
# ---------------------------------------------------------------------------------
for _name, _ref in (("reduce_max", np.max), ("reduce_min", np.min)):
    _op = getattr(P, _name)
    case(_name, (lambda op: lambda x: op(x, (1,)))(_op), (lambda r: lambda x: r(x, axis=1))(_ref),
         Arg((3, 5), Distinct()), variant="axis1", variants=(
             Variant("0d", (Arg((), Distinct()),), (lambda op: lambda x: op(x, ()))(_op),
                     (lambda r: lambda x: r(x, axis=()))(_ref)),
             Variant("empty", (Arg((2, 0), Distinct()),), (lambda op: lambda x: op(x, (0,)))(_op),
                     (lambda r: lambda x: r(x, axis=0))(_ref)),
         ))
    case(_name, (lambda op: lambda x: op(x, (0, 1)))(_op), _ref, Arg((3, 5), Distinct()),
         variant="all")
case("reduce_prod", lambda x: P.reduce_prod(x, (1,)), lambda x: np.prod(x, axis=1),
     Arg((3, 4), Away(0.5, 1.5)), complex=True, variant="axis1", variants=(
         Variant("0d", (Arg(()),), lambda x: P.reduce_prod(x, ()),
                 lambda x: np.prod(x, axis=())),
         Variant("empty_reduced", (Arg((2, 0)),), lambda x: P.reduce_prod(x, (1,)),
                 lambda x: np.prod(x, axis=1)),
         Variant("empty_kept", (Arg((2, 0)),), lambda x: P.reduce_prod(x, (0,)),
                 lambda x: np.prod(x, axis=0)),
     ))
case("reduce_prod", lambda x: P.reduce_prod(x, (0, 1)), np.prod, Arg((2, 3), Away(0.5, 1.5)),
     complex=True, variant="all")
for _name in ("argmax", "argmin"):
    _op, _ref = getattr(P, _name), getattr(np, _name)
    case(_name, (lambda op: lambda x: op(x, 1))(_op), (lambda r: lambda x: r(x, axis=1))(_ref),
         Arg((3, 5), Distinct()), differentiable=False, variant="axis1", variants=(
             Variant("empty", (Arg((0, 3), Distinct()),),
                     (lambda op: lambda x: op(x, 1))(_op),
                     (lambda r: lambda x: r(x, axis=1))(_ref)),
         ))
    case(_name, (lambda op: lambda x: op(x, None))(_op), _ref, Arg((3, 5), Distinct()),
         differentiable=False, variant="flat", variants=(
             Variant("0d", (Arg((), Distinct()),), (lambda op: lambda x: op(x, None))(_op),
                     _ref),
         ))

# ---------------------------------------------------------------------------------
# indexing
# ---------------------------------------------------------------------------------
_ROWS = np.array([0, 2, 0, 4, -1])          # repeats and a negative index
_COLS = np.array([[0, 2], [1, 1]])          # 2-d, repeated
_MASK = np.array([True, False, True, True, False])


def _gather_case(variant, idx, shape, variants=()):
    case("gather", lambda x: P.gather(x, idx), lambda x: x[idx], Arg(shape), complex=True,
         variant=variant, variants=variants)


_gather_case("rows", _ROWS, (5, 3), variants=(
    Variant("0d", (Arg(()),), lambda x: P.gather(x, ()), lambda x: x[()]),
    Variant("empty_index", (Arg((5, 3)),), lambda x: P.gather(x, np.zeros(0, np.int64)),
            lambda x: x[np.zeros(0, np.int64)]),
    Variant("empty_array", (Arg((0, 3)),), lambda x: P.gather(x, (slice(None), 1)),
            lambda x: x[:, 1]),
))
_gather_case("slices", (slice(1, 4), 1), (5, 3))
_gather_case("int", -2, (5, 3))
_gather_case("cols", (slice(None), _COLS), (4, 3))
_gather_case("mask", _MASK, (5, 2))
_gather_case("newaxis_ellipsis", (None, Ellipsis, slice(None, None, -1)), (2, 3))


def _add_at(shape, idx):
    def ref(u):
        z = np.zeros(shape, u.dtype)
        np.add.at(z, idx, u)
        return z
    return ref


def _scatter_case(variant, idx, ushape, shape, variants=()):
    case("scatter_add", lambda u: P.scatter_add(u, idx, shape), _add_at(shape, idx),
         Arg(ushape), complex=True, variant=variant, variants=variants)


_scatter_case("rows", _ROWS, (5, 3), (5, 3), variants=(
    Variant("0d", (Arg(()),), lambda u: P.scatter_add(u, (), ()), _add_at((), ())),
    Variant("empty_updates", (Arg((0, 3)),),
            lambda u: P.scatter_add(u, np.zeros(0, np.int64), (4, 3)),
            _add_at((4, 3), np.zeros(0, np.int64))),
))
_scatter_case("slices", (slice(1, 4), 1), (3,), (5, 3))
_scatter_case("cols", (slice(None), _COLS), (4, 2, 2), (4, 3))
_scatter_case("broadcast_updates", (slice(1, 4), slice(None)), (1, 3), (5, 3))

# a 0-d boolean (a new length-1 axis indexed by [0]) next to an array; an empty list
_gather_case("bool0", (slice(None), True, np.array([0, 2, 2])), (4, 3))
_gather_case("empty_list", [], (4, 3))
# several index arrays (flattened to one row index by the kernel), repeated targets
_scatter_case("pairs", (np.array([0, 2, 0, -1]), np.array([1, 1, 1, 0])), (4,), (4, 3))
_scatter_case("pairs_trailing", (np.array([[0], [3]]), np.array([1, 1, 2])), (2, 3, 5),
              (4, 3, 5))

# ---------------------------------------------------------------------------------
# scans and sorting (ftrans.primitives.scan)
# ---------------------------------------------------------------------------------
case("cumsum", lambda x: P.cumsum(x, 1), lambda x: np.cumsum(x, axis=1), Arg((3, 4)),
     complex=True, variant="axis1", variants=(
         Variant("empty_axis", (Arg((2, 0)),)),
         Variant("empty_other", (Arg((0, 3)),)),
     ))
case("cumsum", lambda x: P.cumsum(x, 0, reverse=True),
     lambda x: np.flip(np.cumsum(np.flip(x, 0), axis=0), 0), Arg((4, 3)), complex=True,
     variant="reverse_axis0")
case("argsort", lambda x: P.argsort(x, 1), lambda x: np.argsort(x, axis=1, kind="stable"),
     Arg((3, 5), Distinct()), differentiable=False, variant="axis1", variants=(
         Variant("empty", (Arg((0, 3), Distinct()),)),
     ))
# ties (a small lattice): the stable order; complex: lexicographic, as NumPy
case("argsort", lambda x: P.argsort(x, 0), lambda x: np.argsort(x, axis=0, kind="stable"),
     Arg((6, 3), _TIES), complex=True, differentiable=False, variant="ties_axis0")

# ---------------------------------------------------------------------------------
# dot_general
# ---------------------------------------------------------------------------------
def _dot_case(variant, lshape, rshape, dims, subscripts, variants=()):
    case("dot_general", lambda a, b: P.dot_general(a, b, dims),
         lambda a, b: np.einsum(subscripts, a, b), Arg(lshape), Arg(rshape), complex=True,
         variant=variant, variants=variants)


_dot_case("matmul", (3, 4), (4, 5), (((1,), (0,)), ((), ())), "ij,jk->ik", variants=(
    Variant("empty_contraction", (Arg((2, 0)), Arg((0, 3)))),
    Variant("empty_free", (Arg((0, 4)), Arg((4, 3)))),
))
_dot_case("vector", (4,), (4,), (((0,), (0,)), ((), ())), "i,i->")
_dot_case("outer", (3,), (2,), (((), ()), ((), ())), "i,j->ij")
_dot_case("batched", (2, 3, 4), (2, 4, 5), (((2,), (1,)), ((0,), (0,))), "bij,bjk->bik")
# contract lhs axes (0, 2) with rhs axes (2, 0), in that pairing: tests the axis bookkeeping
_dot_case("multi_contract", (4, 2, 3), (3, 5, 4), (((0, 2), (2, 0)), ((), ())), "iaj,jbi->ab")
# batch axes not leading, and in different positions in lhs and rhs
_dot_case("batch_inner", (3, 2, 4), (4, 2, 5), (((2,), (0,)), ((1,), (1,))), "ibk,kbj->bij")


# ---------------------------------------------------------------------------------
# linear algebra (ftrans.primitives.linalg): well-conditioned inputs; the multiple-result
# decompositions are checked through gauge-invariant functions of their outputs
# (eigen-/singular vectors are defined up to a sign, complex: a phase).
# Matrix domains know the row's per-example shape: when a test inserts batch axes
# (tests/transforms/test_vmap_rules.py, sizes 7, 3, 4 -- which is why no per-example
# axis here has one of those sizes), every per-example slice is a matrix of the domain.
# ---------------------------------------------------------------------------------
import ftrans.primitives.linalg as PL  # noqa: E402


def _la_unitary(rng, shape, dtype):
    z = rng.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        z = z + 1j * rng.standard_normal(shape)
    return np.linalg.qr(z)[0]


def _la_well(rng, shape, dtype):
    """``n I + 0.4 * noise``: well conditioned (last two axes are the matrix)."""
    n = shape[-1]
    return np.asarray(U(-1, 1)(rng, shape, dtype) * 0.4 + n * np.eye(n), dtype)


def _la_spd(rng, shape, dtype):
    """Hermitian positive definite ``B B^H + n I``."""
    b = U(-1, 1)(rng, shape, dtype)
    return np.asarray(b @ np.conj(np.swapaxes(b, -1, -2)) + shape[-1] * np.eye(shape[-1]), dtype)


def _la_herm(rng, shape, dtype):
    """Hermitian with eigenvalues spread over [1, 3]."""
    n = shape[-1]
    q = _la_unitary(rng, shape, dtype)
    w = np.linspace(1.0, 3.0, n) + rng.uniform(-0.05, 0.05, tuple(shape[:-2]) + (n,))
    return np.asarray((q * w[..., None, :]) @ np.conj(np.swapaxes(q, -1, -2)), dtype)


def _la_sv(rng, shape, dtype):
    """``U diag(s) V^H`` with singular values spread over [1, 3]."""
    m, n = shape[-2:]
    k = min(m, n)
    batch = tuple(shape[:-2])
    u = _la_unitary(rng, batch + (m, k), dtype)
    v = _la_unitary(rng, batch + (n, k), dtype)
    s = np.linspace(3.0, 1.0, k) + rng.uniform(-0.05, 0.05, batch + (k,))
    return np.asarray((u * s[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), dtype)


def _la_wide(rng, shape, dtype):
    """``m < n`` whose first ``m`` columns are well conditioned (a wide QR's factor)."""
    m, n = shape[-2:]
    a1 = _la_well(rng, tuple(shape[:-2]) + (m, m), dtype)
    a2 = U(-1, 1)(rng, tuple(shape[:-2]) + (m, n - m), dtype)
    return np.asarray(np.concatenate([a1, a2], -1), dtype)


def LA(shape, kind):
    """An :class:`Arg` of per-example ``shape`` whose domain ``kind(rng, shape, dtype)``
    builds matrices over the last two axes.  Asked for a shape with extra (batch) axes,
    it finds where they were inserted (per-example sizes are not 3, 4 or 7), builds the
    matrices with the batch axes in front and moves them there."""
    per = tuple(shape)

    def gen(rng, full, dtype):
        full = tuple(full)
        inserted, j = [], 0
        for i, d in enumerate(full):
            if j < len(per) and d == per[j] and len(full) - i >= len(per) - j:
                j += 1
            else:
                inserted.append(i)
        if j != len(per):
            raise ValueError(f"shape {full} does not contain the per-example shape {per}")
        base = kind(rng, tuple(full[i] for i in inserted) + per, dtype)
        return np.moveaxis(base, list(range(len(inserted))), inserted)
    return Arg(per, gen)


def _la_weights(k, dtype):
    return (np.arange(1, k + 1) ** 1.5).astype(np.finfo(dtype).dtype)


def _eigh_row(lower):
    """``V diag(c + w^2) V^H`` (gauge invariant; depends on w and V)."""
    def fn(a):
        w, v = PL.eigh(a, lower)
        c = P.add(_la_weights(w.shape[-1], w.dtype), P.mul(w, w))
        return PL._mm(P.mul(v, P.expand_dims(c, (len(w.shape) - 1,))), PL._H(v))

    def ref(a):
        w, v = np.linalg.eigh(a, UPLO="L" if lower else "U")
        c = _la_weights(w.shape[-1], w.dtype) + w * w
        return (v * c[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2))
    return fn, ref


def _svd_row(full):
    """``U diag(c + s^2) Vh`` over the first k columns (gauge invariant)."""
    def fn(a):
        u, s, vh = PL.svd(a, full)
        k = s.shape[-1]
        u = P.gather(u, (Ellipsis, slice(0, k)))
        vh = P.gather(vh, (Ellipsis, slice(0, k), slice(None)))
        c = P.add(_la_weights(k, s.dtype), P.mul(s, s))
        return PL._mm(P.mul(u, P.expand_dims(c, (len(s.shape) - 1,))), vh)

    def ref(a):
        u, s, vh = np.linalg.svd(a, full_matrices=full)
        k = s.shape[-1]
        c = _la_weights(k, s.dtype) + s * s
        return (u[..., :, :k] * c[..., None, :]) @ vh[..., :k, :]
    return fn, ref


def _flat_cat(xs, batch_nd):
    """Concatenate outputs flattened after their first ``batch_nd`` axes."""
    parts = [P.reshape(x, tuple(x.shape[:batch_nd])
                       + (int(np.prod(x.shape[batch_nd:], dtype=np.int64)),)) for x in xs]
    return P.concatenate(parts, batch_nd)


def _np_flat_cat(xs, batch_nd):
    return np.concatenate([np.asarray(x).reshape(np.shape(x)[:batch_nd] + (-1,)) for x in xs],
                          batch_nd)


case("solve", PL.solve, np.linalg.solve, LA((5, 5), _la_well), Arg((5, 2)), complex=True,
     variants=(Variant("empty_batch", (LA((0, 5, 5), _la_well), Arg((0, 5, 2)))),
               Variant("empty_rhs", (LA((5, 5), _la_well), Arg((5, 0)))),
               Variant("0x0", (Arg((0, 0)), Arg((0, 2))))))
case("solve", PL.solve, np.linalg.solve, LA((2, 5, 5), _la_well), Arg((2, 5, 6)), complex=True,
     variant="batched")
for _lower in (True, False):
    case("triangular_solve", (lambda lo: lambda a, b: PL.triangular_solve(a, b, lo))(_lower),
         (lambda lo: lambda a, b: np.linalg.solve(np.tril(a) if lo else np.triu(a), b))(_lower),
         LA((2, 5, 5), _la_well), Arg((2, 5, 2)), complex=True,
         variant="lower" if _lower else "upper",
         variants=(Variant("empty", (Arg((0, 0)), Arg((0, 2)))),))


def _sym_in(fn, ref):
    """The functions that read one triangle of a Hermitian input are differentiated as
    ``a -> f((a + a^H) / 2)`` (JAX's and PyTorch's convention; ``_sym`` in
    primitives/_linalg_common.py): finite differences in arbitrary directions check them
    through that symmetrization, which leaves a Hermitian input unchanged."""
    return (lambda a: fn(P.mul(P.add(a, PL._H(a)), 0.5)),
            lambda a: ref((a + np.conj(np.swapaxes(a, -1, -2))) / 2))


case("cholesky", *_sym_in(PL.cholesky, np.linalg.cholesky), LA((5, 5), _la_spd), complex=True,
     variants=(Variant("empty_batch", (LA((0, 5, 5), _la_spd),)),))
case("cholesky", *_sym_in(PL.cholesky, np.linalg.cholesky), LA((2, 6, 6), _la_spd),
     complex=True, variant="batched")
for _lower in (True, False):
    case("eigh", *_sym_in(*_eigh_row(_lower)), LA((5, 5), _la_herm), complex=True,
         variant="lower" if _lower else "upper")
    case("hermitian_part", *_sym_in((lambda lo: lambda a: PL._hermitian_part(a, lo))(_lower),
                                    lambda a: a), LA((2, 4, 4), _la_herm), complex=True,
         variant="lower" if _lower else "upper")
case("eigh", *_sym_in(*_eigh_row(True)), LA((2, 5, 5), _la_herm), complex=True,
     variant="batched")
case("eigh", *_sym_in(lambda a: PL.eigh(a)[0], lambda a: np.linalg.eigh(a)[0]),
     LA((5, 5), _la_herm), complex=True, variant="eigenvalues")
for _shape in ((5, 5), (6, 2), (2, 5), (2, 5, 2)):
    _fn, _ref = _svd_row(False)
    case("svd", _fn, _ref, LA(_shape, _la_sv), complex=True, variant="x".join(map(str, _shape)))
_fn, _ref = _svd_row(True)
case("svd", _fn, _ref, LA((5, 5), _la_sv), complex=True, variant="full_square")
case("svd", lambda a: PL.svd(a)[1], lambda a: np.linalg.svd(a, compute_uv=False),
     LA((2, 5), _la_sv), complex=True, variant="values")
for _shape, _complete in (((6, 5), False), ((5, 5), False), ((2, 2, 5), False),
                          ((2, 5), True)):
    case("qr", (lambda c: lambda a: _flat_cat(PL.qr(a, c), a.ndim - 2))(_complete),
         (lambda c: lambda a: _np_flat_cat(np.linalg.qr(a, "complete" if c else "reduced"),
                                           a.ndim - 2))(_complete),
         LA(_shape, _la_sv if _shape[-2] >= _shape[-1] else _la_wide), complex=True,
         variant="x".join(map(str, _shape)) + ("_complete" if _complete else ""))
case("det", PL.det, np.linalg.det, LA((5, 5), _la_well), complex=True,
     variants=(Variant("0x0", (Arg((0, 0)),)), Variant("empty_batch", (Arg((0, 2, 2)),))))
case("det", PL.det, np.linalg.det, LA((2, 6, 6), _la_well), complex=True, variant="batched")
case("slogdet", lambda a: _flat_cat(PL.slogdet(a), a.ndim - 2),
     lambda a: _np_flat_cat(np.linalg.slogdet(a), a.ndim - 2), LA((2, 5, 5), _la_well),
     complex=True)
case("slogdet", lambda a: PL.slogdet(a)[1], lambda a: np.linalg.slogdet(a)[1],
     LA((5, 5), _la_well), complex=True, variant="logabsdet")
case("pinv", lambda a: PL.pinv(a), np.linalg.pinv, LA((6, 5), _la_sv), complex=True,
     variant="tall")
case("pinv", lambda a: PL.pinv(a), np.linalg.pinv, LA((2, 2, 5), _la_sv), complex=True,
     variant="wide_batched")
case("pinv", *_sym_in(lambda a: PL.pinv(a, hermitian=True),
                     lambda a: np.linalg.pinv(a, hermitian=True)),
     LA((5, 5), _la_herm), complex=True, variant="hermitian")


# ---------------------------------------------------------------------------------
# higher-order primitives (custom_jvp, custom_vjp, checkpoint, jit): a user function applied
# through them; their rules must agree with finite differences of that function
# ---------------------------------------------------------------------------------
@ftrans.custom_jvp
def _softplus(x):
    return P.log1p(P.exp(x))


@_softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _softplus(x), P.mul(t, P.div(1.0, P.add(1.0, P.exp(P.neg(x)))))


@ftrans.custom_vjp
def _sin_times(x, y):
    return P.mul(P.sin(x), y)


_sin_times.defvjp(lambda x, y: (P.mul(P.sin(x), y), (x, y)),
                  lambda res, g: (P.mul(g, P.mul(P.cos(res[0]), res[1])),
                                  P.mul(g, P.sin(res[0]))))

case("custom_jvp_call", _softplus, lambda x: np.log1p(np.exp(x)), Arg(S))
case("custom_vjp_call", _sin_times, lambda x, y: np.sin(x) * y, Arg(S), Arg(S))
# pure_callback: a host function (np.sin) in its recommended use, inside a custom_jvp that
# supplies the derivative (the primitive alone refuses differentiation: test_callback.py)
@ftrans.custom_jvp
def _host_sin(x):
    return ftrans.pure_callback(np.sin, ftrans.ShapeDtypeStruct(x.shape, x.dtype), x)


@_host_sin.defjvp
def _host_sin_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _host_sin(x), P.mul(t, P.cos(x))


def _host_sin_plus_zero(x):
    # plus a direct bind on a constant operand (which must not refuse)
    z = ftrans.pure_callback(np.sin, ftrans.ShapeDtypeStruct(x.shape, x.dtype),
                             np.zeros(x.shape, x.dtype))
    return P.add(_host_sin(x), z)


case("pure_callback", _host_sin_plus_zero, np.sin, Arg(S))


# debug_callback (ftrans.debug.callback): an effect with no outputs; the row returns
# sin(x) next to it.  The host function checks that it receives concrete NumPy arrays
# whatever the transform.
def _debug_sink(v):
    assert isinstance(v, np.ndarray), f"debug callback got {type(v).__name__}"


case("debug_callback", lambda x: (ftrans.debug.callback(_debug_sink, x), P.sin(x))[1],
     np.sin, Arg(S), complex=True)
# dynamic_slice / dynamic_update_slice: start indices clamped so the window fits
case("dynamic_slice", lambda x: P.dynamic_slice_op(x, (1, 2), (2, 2)),
     lambda x: x[1:3, 2:4], Arg(S), complex=True, variants=(
         Variant("0d", (Arg(()),), lambda x: P.dynamic_slice_op(x, (), ()), lambda x: x[()]),
         Variant("empty", (Arg((0, 3)),), lambda x: P.dynamic_slice_op(x, (0, 5), (0, 2)),
                 lambda x: x[:, 1:3]),
     ))
case("dynamic_slice", lambda x: P.dynamic_slice_op(x, (7, np.int32(-2)), (2, 3)),
     lambda x: x[1:3, 0:3], Arg(S), complex=True, variant="clamped")


def _dus_ref(starts):
    def ref(x, u):
        out = x.copy()
        out[tuple(slice(s, s + k) for s, k in zip(starts, u.shape))] = u
        return out
    return ref


case("dynamic_update_slice", lambda x, u: P.dynamic_update_slice_op(x, u, (2, 9)),
     _dus_ref((1, 1)), Arg(S), Arg((2, 3)), complex=True)
case("checkpoint", ftrans.checkpoint(lambda x, y: P.tanh(P.mul(x, y))),
     lambda x, y: np.tanh(x * y), Arg(S), Arg(S))
# jit: a staged program applied through the jit primitive (its rules transform the IR)
case("jit", ftrans.jit(lambda x, y: P.mul(P.tanh(P.mul(x, y)), P.sin(x))),
     lambda x, y: np.tanh(x * y) * np.sin(x), Arg(S), Arg(S), complex=True)

# control flow (ftrans.lax): sub-programs staged into the primitive's params
from ftrans import lax as _lax  # noqa: E402


def _np_scan_rnn(h, w, xs):
    hs = [h]
    for x in xs:
        hs.append(np.tanh(hs[-1] * w + x))
    return np.stack([hs[-1]] + [a * x for a, x in zip(hs[:-1], xs)])


def _scan_rnn(h, w, xs, reverse=False):
    last, ys = _lax.scan(lambda c, x: (P.tanh(P.add(P.mul(c, w), x)), P.mul(c, x)), h, xs,
                         reverse=reverse)
    return P.concatenate([P.expand_dims(last, (0,)), ys], 0)


def _while_count(x):
    # the trip count depends on x through the predicate only (x closes over cond_fun); the
    # derivative flows around the loop, because reverse mode through a while_loop raises
    # by design -- tests/lax checks the loop's own forward-mode derivatives
    top = P.reduce_max(x, tuple(range(x.ndim)))
    n = _lax.while_loop(lambda i: P.lt(P.mul(P.convert_element_type(i, x.dtype), 0.5), top),
                        lambda i: P.add(i, 1), 0)
    return P.mul(x, P.convert_element_type(n, x.dtype))


case("cond", lambda x, y: _lax.cond(True, lambda a, b: P.mul(P.sin(a), b),
                                    lambda a, b: P.add(a, b), x, y),
     lambda x, y: np.sin(x) * y, Arg(S), Arg(S), complex=True,
     variants=(Variant("0d", (Arg(()), Arg(()))), Variant("empty", (Arg((0, 2)), Arg((0, 2))))))
case("cond", lambda x, y: _lax.switch(7, [lambda a, b: P.mul(P.sin(a), b),
                                          lambda a, b: P.add(a, b),
                                          lambda a, b: P.div(a, P.cos(b))], x, y),
     lambda x, y: x / np.cos(y), Arg(S), Arg(S, U(-1, 1)), variant="switch_clamped")
case("while", _while_count,
     lambda x: x * max(0, int(np.ceil(np.max(x) / 0.5))),
     Arg(S, Lattice(0.5, 0.25, n=3, jitter=0.05)))
case("scan", _scan_rnn, _np_scan_rnn, Arg((4,)), Arg((4,), U(-1, 1)), Arg((3, 4)),
     complex=True, variants=(Variant("0d_carry", (Arg(()), Arg((), U(-1, 1)), Arg((3,)))),
                             Variant("length0", (Arg((4,)), Arg((4,)), Arg((0, 4))))))
case("scan", lambda h, w, xs: _scan_rnn(h, w, xs, reverse=True),
     lambda h, w, xs: _np_scan_rnn(h, w, xs[::-1])[[0, 3, 2, 1]],
     Arg((4,)), Arg((4,), U(-1, 1)), Arg((3, 4)), variant="reverse")

# ---------------------------------------------------------------------------------
# special functions (ftrans.primitives.special; references from scipy.special)
# ---------------------------------------------------------------------------------
import scipy.special as _sc  # noqa: E402

case("erf", P.special.erf, _sc.erf, Arg(S, U(-2, 2, im=(-1, 1))), complex=True, kind="unary")
case("erfc", P.special.erfc, _sc.erfc, Arg(S, U(-2, 2, im=(-1, 1))), complex=True,
     kind="unary")
case("erfinv", P.special.erfinv, _sc.erfinv, Arg(S, U(-0.9, 0.9)), kind="unary")
case("gammaln", P.special.gammaln, _sc.gammaln, Arg(S, U(0.5, 4.0)), kind="unary")
# negative non-integers: log|Gamma| there too (derivative digamma, away from the poles)
case("gammaln", P.special.gammaln, _sc.gammaln, Arg(S, U(-2.8, -2.2)), kind="unary",
     variant="negative")
case("digamma", P.special.digamma, _sc.digamma, Arg(S, U(0.5, 4.0)), kind="unary")
for _n in (0, 1, 2, 3):
    case("polygamma", (lambda n: lambda x: P.special.polygamma(n, x))(_n),
         (lambda n: lambda x: _sc.polygamma(n, x).astype(x.dtype))(_n), Arg(S, U(0.5, 4.0)),
         kind="unary", variant=f"n={_n}")

# ftrans.primitives.special_scipy (issue 20): the order of a Bessel function, the exponent
# of zeta and betainc's a, b are held fixed (their derivatives raise NotImplementedError:
# tests/scipy/test_special_more.py)
import ftrans.primitives.special_scipy as PSS  # noqa: E402


def _sc_ref(name, *fixed):
    return lambda *xs: np.asarray(getattr(_sc, name)(*fixed, *xs)).astype(np.result_type(*xs))


case("gammainc", PSS.gammainc, _sc_ref("gammainc"), Arg(S, U(0.5, 3.0)), Arg(S, U(0.2, 4.0)),
     kind="binary")
case("gammaincc", PSS.gammaincc, _sc_ref("gammaincc"), Arg(S, U(0.5, 3.0)),
     Arg(S, U(0.2, 4.0)), kind="binary")


def _quad_igamma_da(a, x):
    """d/da gammainc(a, x) by quadrature, independent of the series/fraction:
    d/da [int_0^x t^(a-1) e^-t dt / Gamma(a)] with t = u^(1/a) is
    int_0^(x^a) e^(-u^(1/a)) log(u) du / (a Gamma(a+1)) - digamma(a) P(a, x)
    (QUADPACK's log-weighted rule for the log(u) singularity)."""
    import warnings
    from scipy.integrate import quad

    def one(a, x):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            i = quad(lambda u: np.exp(-u ** (1 / a)), 0, x ** a, weight="alg-loga",
                     wvar=(0, 0), epsabs=0, epsrel=1e-13, limit=200)[0]
        return i / (a * _sc.gamma(a + 1)) - _sc.digamma(a) * _sc.gammainc(a, x)
    f = np.vectorize(one, otypes=[np.float64])
    return f(np.asarray(a, np.float64), np.asarray(x, np.float64))


case("igamma_da", lambda a, x: PSS.igamma_da(a, x, 1),
     lambda a, x: _quad_igamma_da(a, x).astype(np.result_type(a, x)),
     Arg(S, U(0.5, 3.0)), Arg(S, U(0.2, 4.0)), kind="binary")
case("betainc", PSS.betainc, _sc_ref("betainc"), Arg(S, U(0.6, 3.0)), Arg(S, U(0.6, 3.0)),
     Arg(S, U(0.1, 0.9)), kind="ternary")


def _fd_ibeta_da(a, b, x):
    """d/da betainc by a 4th-order central difference of SciPy's betainc (h = 1e-3)."""
    a, b, x = (v.astype(np.float64) for v in (a, b, x))
    h = 1e-3
    f = lambda s: _sc.betainc(a + s, b, x)  # noqa: E731
    return (8 * (f(h) - f(-h)) - (f(2 * h) - f(-2 * h))) / (12 * h)


# (derivative in a; its own first and second derivatives: orders 2, 3 of betainc)
case("ibeta_dir", lambda a, b, x: PSS.ibeta_dir(a, b, x, 1, 1, 0),
     lambda a, b, x: _fd_ibeta_da(a, b, x).astype(a.dtype), Arg(S, U(0.6, 3.0)),
     Arg(S, U(0.6, 3.0)), Arg(S, U(0.1, 0.9)), kind="ternary")
case("zeta", lambda q: PSS.zeta(3.0, q), _sc_ref("zeta", 3.0), Arg(S, U(0.5, 3.0)),
     kind="unary")
# (its only input, the exponent, is not differentiable: here a constant factor)
case("riemann_zeta", lambda x: P.mul(x, PSS.riemann_zeta(np.asarray(-2.5, x.dtype))),
     lambda x: x * _sc.zeta(np.asarray(-2.5, x.dtype)), Arg(S, U(-3.0, 4.0)), kind="unary")
case("gammasgn", PSS.gammasgn, _sc_ref("gammasgn"), Arg(S, OffInteger()), kind="unary")
for _name, _dom in (("ndtr", U(-3, 3)), ("log_ndtr", U(-3, 3)), ("erfcx", U(-2, 3)),
                    ("ndtri", U(0.05, 0.95)), ("erfcinv", U(0.1, 1.9)),
                    ("rgamma", U(-2.8, 3.0)), ("j0", U(0.2, 4)), ("j1", U(0.2, 4)),
                    ("y0", U(0.3, 4)), ("y1", U(0.3, 4))):
    case(_name, getattr(PSS, _name), _sc_ref(_name), Arg(S, _dom), kind="unary")
for _k, _name in enumerate(("airy_ai", "airy_aip")):
    case(_name, getattr(PSS, _name),
         (lambda k: lambda x: np.asarray(_sc.airy(x)[k]).astype(x.dtype))(_k),
         Arg(S, U(-3, 2)), kind="unary")
for _name in ("jv", "yv", "iv", "ive", "kv", "kve"):
    case(_name, (lambda f: lambda x: f(1.5, x))(getattr(PSS, _name)), _sc_ref(_name, 1.5),
         Arg(S, U(0.3, 3.0)), kind="unary")

# ---------------------------------------------------------------------------------
# fft (ftrans.primitives.fft; references from numpy.fft)
# ---------------------------------------------------------------------------------
_CDT = ("complex128", "complex64")
_FDT = ("float64", "float32")
for _norm in ("backward", "ortho", "forward"):
    for _kind, _ref in (("fft", np.fft.fftn), ("ifft", np.fft.ifftn)):
        for _axes in ((1,), (0, 2)):
            case("fft", (lambda k, a, nm: lambda x: P.fft.fft(x, k, a, nm))(_kind, _axes, _norm),
                 (lambda r, a, nm: lambda x: r(x, axes=a, norm=nm))(_ref, _axes, _norm),
                 Arg((2, 3, 4)), dtypes=_CDT, variant=f"{_kind}-{_axes}-{_norm}")
    for _axes in ((2,), (2, 0)):
        case("fft", (lambda a, nm: lambda x: P.fft.fft(x, "rfft", a, nm))(_axes, _norm),
             (lambda a, nm: lambda x: np.fft.rfftn(x, axes=a, norm=nm))(_axes, _norm),
             Arg((2, 3, 5)), dtypes=_FDT, variant=f"rfft-{_axes}-{_norm}")
    # irfft: the input's last transformed axis has n // 2 + 1 bins (even and odd n)
    for _axes, _n in (((1,), 6), ((1,), 5), ((0, 1), 4), ((1, 0), 3)):
        _shape = [3, 4]
        _shape[_axes[-1]] = _n // 2 + 1
        case("fft", (lambda a, nm, n: lambda x: P.fft.fft(x, "irfft", a, nm, n))(_axes, _norm, _n),
             (lambda a, nm, n: lambda x: np.fft.irfftn(
                 x, s=[x.shape[i] for i in a[:-1]] + [n], axes=a, norm=nm))(_axes, _norm, _n),
             Arg(tuple(_shape)), dtypes=_CDT, variant=f"irfft-{_axes}-n={_n}-{_norm}")


# ---------------------------------------------------------------------------------
# convolution and windowed reductions (ftrans.primitives.conv / .window): NumPy
# references written as plain loops over output positions and window taps
# ---------------------------------------------------------------------------------
import ftrans.primitives.conv as PC  # noqa: E402
import ftrans.primitives.window as PW  # noqa: E402


def _np_dilate_pad(x, dil, pads, fill):
    shape = tuple(0 if s == 0 else (s - 1) * d + 1 for s, d in zip(x.shape, dil))
    y = np.full(shape, fill, x.dtype)
    y[tuple(slice(None, None, d) for d in dil)] = x
    return np.pad(y, pads, constant_values=fill)


def _np_conv(strides, pads, ldil, rdil, groups):
    def ref(x, w):
        n, c = x.shape[:2]
        o, cg = w.shape[:2]
        ks = w.shape[2:]
        og = o // groups
        xd = _np_dilate_pad(x, (1, 1) + ldil, ((0, 0), (0, 0)) + pads, 0)
        out_sp = tuple((s - (k - 1) * d - 1) // st + 1
                       for s, k, d, st in zip(xd.shape[2:], ks, rdil, strides))
        out = np.zeros((n, o) + out_sp, np.result_type(x, w))
        for pos in np.ndindex(*out_sp):
            for tap in np.ndindex(*ks):
                at = tuple(p * st + t * d for p, st, t, d in zip(pos, strides, tap, rdil))
                patch = xd[(slice(None), slice(None)) + at]
                for g in range(groups):
                    out[(slice(None), slice(g * og, (g + 1) * og)) + pos] += (
                        patch[:, g * cg:(g + 1) * cg] @ w[(slice(g * og, (g + 1) * og),
                                                           slice(None)) + tap].T)
        return out
    return ref


def _conv_case(variant, lshape, rshape, strides, pads, ldil, rdil, groups, cplx=False,
               variants=()):
    case("conv_general_dilated",
         lambda x, w: PC.conv_general_dilated(x, w, strides, pads, ldil, rdil,
                                              feature_group_count=groups),
         _np_conv(strides, pads, ldil, rdil, groups), Arg(lshape), Arg(rshape),
         complex=cplx, variant=variant, variants=variants)


_conv_case("2d", (2, 3, 5, 5), (2, 3, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1), (1, 1), 1,
           cplx=True, variants=(Variant("empty_batch", (Arg((0, 3, 5, 5)), Arg((2, 3, 3, 3)))),))
_conv_case("2d_strided_grouped_dilated", (2, 4, 5, 6), (6, 2, 3, 2), (2, 1), ((1, 0), (1, 2)),
           (1, 1), (1, 2), 2)
_conv_case("1d_lhs_dilated", (2, 3, 5), (2, 3, 3), (1,), ((2, 1),), (2,), (1,), 1)
_conv_case("1d_stride_leftover", (1, 2, 6), (3, 2, 2), (3,), ((0, 0),), (1,), (1,), 1)


# conv_patches (im2col) and its transpose (col2im): loops over channels, window taps and
# output positions on the dilated, padded input
import ftrans.primitives.patches as PCP  # noqa: E402


def _np_patch_index(shape, ks, strides, pads, ldil, rdil):
    """[(row, col, (n, c, *position in x))]: the entries of the patches matrix that read an
    element of x (the others read padding or a hole: zero)."""
    n, c = shape[:2]
    xd_shape = [(s - 1) * d + 1 + lo + hi for s, d, (lo, hi) in zip(shape[2:], ldil, pads)]
    out_sp = tuple((s - (k - 1) * d - 1) // st + 1
                   for s, k, d, st in zip(xd_shape, ks, rdil, strides))
    K, P = int(np.prod(ks)), int(np.prod(out_sp))
    found = []
    for ni in range(n):
        for ci in range(c):
            for ki, tap in enumerate(np.ndindex(*ks)):
                for pi, pos in enumerate(np.ndindex(*out_sp)):
                    at = [p * st + t * d - lo for p, st, t, d, (lo, _) in
                          zip(pos, strides, tap, rdil, pads)]
                    if all(0 <= a < (s - 1) * ld + 1 and a % ld == 0
                           for a, s, ld in zip(at, shape[2:], ldil)):
                        found.append((ci * K + ki, ni * P + pi,
                                      (ni, ci) + tuple(a // ld for a, ld in zip(at, ldil))))
    return found, (c * K, n * P)


def _patches_case(variant, shape, ks, strides, pads, ldil, rdil):
    index, cshape = _np_patch_index(shape, ks, strides, pads, ldil, rdil)

    def ref(x):
        out = np.zeros(cshape, x.dtype)
        for r, col, at in index:
            out[r, col] = x[at]
        return out

    def ref_t(cols):
        out = np.zeros(shape, cols.dtype)
        for r, col, at in index:
            out[at] += cols[r, col]
        return out
    case("conv_patches", lambda x: PCP.conv_patches(x, ks, strides, pads, ldil, rdil), ref,
         Arg(shape), complex=True, variant=variant)
    case("conv_patches_transpose",
         lambda c: PCP.conv_patches_transpose(c, shape, ks, strides, pads, ldil, rdil), ref_t,
         Arg(cshape), complex=True, variant=variant)


_patches_case("2d", (2, 3, 5, 4), (3, 2), (1, 1), ((1, 1), (0, 1)), (1, 1), (1, 1))
_patches_case("2d_strided_dilated_cropped", (2, 2, 7, 6), (2, 3), (2, 1), ((-1, 1), (2, 0)),
              (1, 1), (1, 2))
_patches_case("1d_lhs_dilated", (2, 3, 5), (3,), (2,), ((2, 1),), (2,), (1,))


def _np_windowed(red, window, strides, pads, bdil, wdil, fill):
    def ref(x):
        xd = _np_dilate_pad(x, bdil, pads, fill)
        out_sp = tuple((s - (k - 1) * d - 1) // st + 1
                       for s, k, d, st in zip(xd.shape, window, wdil, strides))
        out = np.zeros(out_sp, np.int64 if red == "argmax" else x.dtype)
        for pos in np.ndindex(*out_sp):
            taps = list(np.ndindex(*window))
            vals = [xd[tuple(p * st + t * d for p, st, t, d in zip(pos, strides, tap, wdil))]
                    for tap in taps]
            if red == "sum":
                out[pos] = np.sum(vals)
            elif red == "max":
                out[pos] = np.max(vals)
            else:  # flat index into x of the first maximum
                tap = taps[int(np.argmax(vals))]
                at = [p * st + t * d - lo for p, st, t, d, (lo, _) in
                      zip(pos, strides, tap, wdil, pads)]
                out[pos] = np.ravel_multi_index(at, x.shape)
        return out
    return ref


_W2 = ((1, 1, 3, 2), (1, 1, 2, 2), ((0, 0), (0, 0), (1, 1), (1, 0)))
case("reduce_window_sum", lambda x: PW.reduce_window_sum(x, *_W2),
     _np_windowed("sum", *_W2, (1,) * 4, (1,) * 4, 0), Arg((2, 3, 5, 6)), complex=True,
     variant="pool2d", variants=(Variant("empty", (Arg((0, 3, 5, 6)),)),))
case("reduce_window_sum", lambda x: PW.reduce_window_sum(x, (2, 3), (2, 1), ((1, 0), (2, 1)),
                                                         (1, 2), (1, 2)),
     _np_windowed("sum", (2, 3), (2, 1), ((1, 0), (2, 1)), (1, 2), (1, 2), 0), Arg((5, 6)),
     variant="dilated")
case("reduce_window_max", lambda x: PW.reduce_window_max(x, *_W2),
     _np_windowed("max", *_W2, (1,) * 4, (1,) * 4, -np.inf), Arg((2, 3, 5, 6), Distinct()),
     variant="pool2d", variants=(Variant("empty", (Arg((0, 3, 5, 6), Distinct()),)),))
case("reduce_window_max", lambda x: PW.reduce_window_max(x, (3,), (1,), ((1, 1),), (2,)),
     _np_windowed("max", (3,), (1,), ((1, 1),), (1,), (2,), -np.inf), Arg((8,), Distinct()),
     variant="1d_overlapping_dilated")
# windows over three axes: the generic (tap loop) impls; the rows above use the numba
# kernels of ftrans.kernels.window_cpu
_W3 = ((2, 2, 3), (1, 2, 2), ((0, 0), (1, 0), (1, 1)))
case("reduce_window_max", lambda x: PW.reduce_window_max(x, *_W3),
     _np_windowed("max", *_W3, (1,) * 3, (1,) * 3, -np.inf), Arg((3, 5, 6), Distinct()),
     variant="3d_generic")
case("reduce_window_sum", lambda x: PW.reduce_window_sum(x, *_W3),
     _np_windowed("sum", *_W3, (1,) * 3, (1,) * 3, 0), Arg((3, 5, 6)), complex=True,
     variant="3d_generic")
case("reduce_window_argmax", lambda x: PW.reduce_window_argmax(x, *_W3),
     _np_windowed("argmax", *_W3, (1,) * 3, (1,) * 3, -np.inf), Arg((3, 5, 6), _TIES),
     differentiable=False, variant="3d_generic_ties")
case("reduce_window_argmax", lambda x: PW.reduce_window_argmax(x, *_W2),
     _np_windowed("argmax", *_W2, (1,) * 4, (1,) * 4, -np.inf), Arg((2, 3, 5, 6), _TIES),
     differentiable=False, variant="pool2d_ties")

# ---------------------------------------------------------------------------------
# threefry2x32 (ftrans.random): the reference is a scalar Python-int implementation of
# Salmon et al. 2011's Threefry-2x32-20 (known answers: tests/random/test_threefry.py)
def _threefry_scalar(k0, k1, x0, x1):
    m = 0xFFFFFFFF
    ks = (k0, k1, k0 ^ k1 ^ 0x1BD11BDA)
    x0, x1 = (x0 + ks[0]) & m, (x1 + ks[1]) & m
    for g in range(5):
        for r in ((13, 15, 26, 6), (17, 29, 16, 24))[g % 2]:
            x0 = (x0 + x1) & m
            x1 = (((x1 << r) | (x1 >> (32 - r))) & m) ^ x0
        x0 = (x0 + ks[(g + 1) % 3]) & m
        x1 = (x1 + ks[(g + 2) % 3] + g + 1) & m
    return x0, x1


def _threefry_ref(*args):
    args = np.broadcast_arrays(*args)
    pairs = [_threefry_scalar(*map(int, t)) for t in zip(*(a.reshape(-1) for a in args))]
    return np.concatenate([np.array([p[i] for p in pairs], np.uint32).reshape(args[0].shape)
                           for i in (0, 1)], 0)


def _u32(rng, shape, dtype):
    return rng.integers(0, 2 ** 32, shape, dtype=np.uint64).astype(np.uint32)


case("threefry2x32", lambda *a: P.concatenate(P.threefry2x32(*a), 0), _threefry_ref,
     Arg((4,), _u32, "int"), Arg((4,), _u32, "int"), Arg((3, 4), _u32, "int"),
     Arg((3, 4), _u32, "int"), differentiable=False, dtypes=(F64,), variants=(
         Variant("0d_key", (Arg((), _u32, "int"), Arg((), _u32, "int"),
                            Arg((2,), _u32, "int"), Arg((2,), _u32, "int"))),
         Variant("empty", (Arg((), _u32, "int"), Arg((), _u32, "int"),
                           Arg((0,), _u32, "int"), Arg((0,), _u32, "int"))),
     ))

# -- issue 19 (h-np2): the general eigendecomposition and the integer functions ------------
def _la_eig(rng, shape, dtype):
    """``Q D Q^{-1}`` with ``Q = 2I + 0.3 noise`` and ``D`` holding the complex pair
    ``1.5 +- 0.8i`` (a real 2x2 rotation block) and real eigenvalues spread over [2.5, 4]:
    distinct, well separated eigenvalues."""
    n = shape[-1]
    q = np.asarray(U(-1, 1)(rng, shape, dtype) * 0.3 + 2 * np.eye(n), dtype)
    d = np.zeros(shape, np.result_type(dtype, np.float64))
    d[..., range(n), range(n)] = np.linspace(2.5, 4.0, n)
    d[..., 0, 0] = d[..., 1, 1] = 1.5
    d[..., 0, 1], d[..., 1, 0] = 0.8, -0.8
    return np.asarray(q @ d @ np.linalg.inv(q), dtype)


def _eig_fn(a):
    """Gauge-invariant: eigenvalues (re, im) and the squared moduli of the unit
    eigenvectors' entries, concatenated (real)."""
    w, v = PL.eig(a)
    nd = len(a.shape)
    av = P.real(P.mul(P.conj(v), v))
    return _flat_cat([P.real(w), P.imag(w), av], nd - 2)


def _eig_ref(a):
    w, v = np.linalg.eig(a)
    return _np_flat_cat([w.real, w.imag, np.abs(v) ** 2], a.ndim - 2)


case("eig", _eig_fn, _eig_ref, LA((4, 4), _la_eig), complex=True)
case("eig", _eig_fn, _eig_ref, LA((2, 4, 4), _la_eig), complex=True, variant="batched")
case("eig", lambda a: P.real(PL.eig(a)[0]), lambda a: np.linalg.eig(a)[0].real,
     LA((4, 4), _la_eig), complex=True, variant="eigenvalues")
for _fn_name, _nargs in P.bitwise.INTEGER_FUNCTIONS.items():
    case("integer_elementwise",
         (lambda n: lambda *a: P.bitwise.integer_elementwise(n, *a))(_fn_name),
         getattr(np, _fn_name), *([Arg(S, Ints(-20, 21) if "shift" not in _fn_name
                                       else Ints(0, 5), "int")] * _nargs),
         differentiable=False, dtypes=(F64,), keeps_precision=False, variant=_fn_name)

# -- issue 20 (h-sp3): the all-pole filter of scipy.signal.lfilter -----------------------
import ftrans.primitives.iir as PIIR  # noqa: E402


def _iir_a(rng, shape, dtype):
    """Denominators ``[2, u1, ...]`` with ``|u_k| <= 0.4``: stable, ``a[0]`` away from 0."""
    a = U(-0.4, 0.4)(rng, shape, dtype)
    a[..., 0] = 2.0
    return np.asarray(a, dtype)


def _iir_ref(a, v):
    import scipy.signal as ss
    if a.ndim == 1:
        return ss.lfilter(np.ones(1, a.dtype), a, v, axis=-1)
    return np.stack([_iir_ref(a[i], v[i]) for i in range(a.shape[0])])


case("iir_filter", PIIR.iir_filter, _iir_ref, LA((2,), _iir_a), Arg((5, 6)), complex=True)
case("iir_filter", PIIR.iir_filter, _iir_ref, LA((5, 2), _iir_a), Arg((5, 2, 6)),
     complex=True, variant="per_row_filters")

# -- issue 20 (h-sp3): scipy.linalg's primitives (sylvester, matfun, lu) -----------------
def _la_small(rng, shape, dtype):
    """Entries on [-0.3, 0.3]: a moderate matrix exponential."""
    return np.asarray(U(-0.3, 0.3)(rng, shape, dtype), dtype)


def _per_mat(fn):
    """A SciPy function of one matrix applied to each matrix of a stack, in the inputs'
    dtype (SciPy returns float64 / complex for some float32 / real inputs)."""
    def ref(*arrs):
        batch = arrs[0].shape[:-2]
        dt = np.result_type(*arrs)
        outs = [np.asarray(fn(*(a[idx] for a in arrs))) for idx in np.ndindex(*batch)]
        outs = [(o if dt.kind == "c" else o.real).astype(dt) for o in outs]
        return np.stack(outs).reshape(batch + outs[0].shape) if batch else outs[0]
    return ref


def _sp(name):
    import scipy.linalg as sl
    return getattr(sl, name)


case("sylvester", PL.sylvester, _per_mat(lambda a, b, q: _sp("solve_sylvester")(a, b, q)),
     LA((5, 5), _la_well), LA((2, 2), _la_well), Arg((5, 2)), complex=True)
case("matfun", lambda a: PL.matfun(a, "expm"), _per_mat(lambda a: _sp("expm")(a)),
     LA((2, 2), _la_small), complex=True, variant="expm")
# (logm shares expm's rules; its impl -- SciPy's logm, ~0.1 s a call -- is checked with
# check_grads in tests/scipy/test_scipy_linalg.py, not by the whole row table)
case("matfun", lambda a: PL.matfun(a, "sqrtm"), _per_mat(lambda a: _sp("sqrtm")(a)),
     LA((2, 2), _la_well), complex=True, variant="sqrtm")
case("lu", lambda a: PL.lu(a)[0], _per_mat(lambda a: _sp("lu_factor")(a)[0]),
     LA((5, 5), U(-1, 1)), complex=True)  # (stacks: tests/transforms/test_vmap_rules.py)

# ---------------------------------------------------------------------------------
NONDIFFERENTIABLE = {c.name for c in CASES if not c.differentiable}
BINARY_ELEMENTWISE = [c for c in CASES if c.kind == "binary" and not c.variant]
TERNARY_ELEMENTWISE = [c for c in CASES if c.kind == "ternary"]
