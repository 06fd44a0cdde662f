"""The elementwise operation table: one row per operation, every facet generated from it.

An elementwise operation (unary, binary, comparison, predicate) is one :class:`Op` row
below: its names (primitive, NumPy, NumPy 2 aliases, torch and torch's aliases), its
derivative with respect to each input as an expression in the inputs ``x``, ``y``, the
answer ``ans`` (and, implicitly, the tangent or cotangent it multiplies), the complex
convention, the dtype rule, the input domain the systematic tests sample from, and
whether torch has in-place and ``out=`` forms.  What reverse mode saves (the input, the
answer or both) is read off the derivative expressions.

Generated from a row:

* the primitive with impl, abstract evaluation, JVP, VJP and batching rule
  (:mod:`ftrans.primitives.elementwise`), and its compiler lowering entry;
* the fused derivative kernels ``g * f'(x)`` for NumPy/numba, the array API and CUDA
  (``ftrans/kernels/_generated.py``, written by ``python -m ftrans.primitives.optable
  --write`` and checked current by ``tests/primitives/test_optable.py``: the kernels
  layer sits below the primitives and never imports this table);
* the ``ftrans.numpy`` function (and its aliases) and the Tracer ufunc entry;
* compat's function, ``Tensor`` method, in-place method and ``out=`` form, the
  backward node's name (``SinhBackward0``: also the profiler's name);
* the rows of the primitive test table (``tests/primitives/prim_cases.py``) and of the
  docs' breadth table.

Derivative expressions
----------------------
A Python expression over ``x`` (first input), ``y`` (second input), ``ans`` (the
answer), number literals, ``+ - * /`` and the ops of ``ftrans.primitives`` (the rows'
ops, ``where``, the comparisons and logical ops, ``sign``, ``floor`` ...).  For a
holomorphic row the JVP is ``t * d`` and the VJP ``ct * conj(d)`` (PyTorch's convention,
autograd notes "Autograd for Complex Numbers"); for a real row both are the products
with ``d``.  ``"0"`` is a zero derivative (piecewise-constant functions such as
``trunc``: 0 almost everywhere, JAX's and PyTorch's choice); ``"linear"`` marks an
input in which the function is linear (the rule applies the function itself to the
tangent, e.g. ``ldexp(t, n)``); ``None`` an input with no tangent space (the integer
exponent of ``ldexp``).  Rows with ``fuse=True`` also get a fused kernel: their
expression may use only ``x``, ``ans``, the literal ``1`` and the functions of
:data:`VOCABULARY` (those that exist in NumPy, the array API and CUDA alike).

The primitives that are not rows of this table (``add``, ``mul``, ``pow``, ``abs``,
``maximum`` ...; every non-elementwise primitive) keep one file each with all their
rules; :data:`CUSTOM` lists the facets of the elementwise ones in the same form.

Sources: the derivative formulas are those of DLMF (chapter 4 for the elementary
functions, 10.29 and 10.34 for the modified Bessel functions) and PyTorch's
``tools/autograd/derivatives.yaml`` (the conventions at non-differentiable points).
"""
from __future__ import annotations

import ast
import dataclasses
import os
import sys
from collections.abc import Callable
from typing import Any, Optional

__all__ = ["Op", "ROWS", "CUSTOM", "VOCABULARY", "by_name", "node_name", "generate_kernels",
           "compile_rule"]


@dataclasses.dataclass(frozen=True)
class Op:
    """One elementwise operation.

    Attributes:
        name: the primitive's name (``ftrans.primitives.<name>`` is its op).
        arity: 1 or 2 inputs.
        deriv: one derivative expression per input (see the module docstring), or
            ``None`` for an operation with no derivative at all (boolean results).
        numpy: the ``ftrans.numpy`` name (also NumPy's ufunc name), None if none.
        numpy_aliases: further ``ftrans.numpy`` names (NumPy 2's ``acos`` ...).
        torch: compat's function and ``Tensor`` method name, None if torch has none.
        torch_aliases: further compat names (``arcsin`` for ``asin`` ...).
        complex: ``"holomorphic"`` (complex inputs, ``f'`` conjugated in reverse mode)
            or ``"real"`` (real inputs only, as in NumPy/torch).
        dtype: ``"float"`` (integer and boolean inputs give NumPy's floating result),
            ``"same"`` (NumPy's promotion of the inputs) or ``"bool"``.
        domain: the test inputs' domain per input: ``("U", lo, hi)`` uniform,
            ``("U", lo, hi, im_lo, im_hi)`` with a complex part, ``("away", lo, hi)``
            magnitudes in [lo, hi] with random signs, ``("offint",)`` integers plus
            a fraction in [0.1, 0.4], ``("lattice", step, offset)`` points
            ``offset + k*step`` (never ties between lattices of offsets step/2
            apart), ``("int", lo, hi)`` integers, ``("special",)`` with inf/nan.
        kernel: the implementing function: ``"np.<ufunc>"`` or
            ``"scipy.special.<ufunc>"`` (CuPy: ``cupyx.scipy.special``).
        array_api: the array-API standard's name, None where the standard has none
            (those rows raise a clear NotImplementedError on array-API arrays).
        cuda: the CUDA device function for the compiler's GPU lowering (None: the
            GPU lowering is not generated and the program breaks the graph there).
        numba: the numba expression of the forward lowering (default
            ``np.<numpy name>({0}[, {1}])``, and for a ``scipy.special`` kernel the call
            of SciPy's own compiled kernel, ``_sp1("sc_<name>", {0})``:
            ``ftrans/compiler/_numba_special_support.py``); None: no CPU lowering.
        numba_float16: whether ``numba`` computed in float32 and rounded to float16
            gives NumPy's float16 bits on every input (False: float16 graph-breaks; on
            AVX-512 NumPy computes float16 ``exp`` ... with SVML's float32 functions,
            whose last float32 bit differs from libm's, visible after rounding at a few
            inputs; ``nextafter`` and ``spacing`` work on float16's own bits).
        numba_complex: the numba expression for complex operands (None: complex
            operands graph-break); it must give NumPy's bits, special values included
            (the ``_c*`` functions of ``ftrans/compiler/_numba_cplx_support.py`` call the
            C library's functions that NumPy calls).
        fuse: generate the fused ``g * f'(x)`` kernels (unary rows only).
        torch_inplace, torch_out: torch has ``Tensor.<name>_`` / ``out=``.
        torch_special: the row's name in ``torch.special`` where torch has it only there
            (``i1``, ``i0e``, ``i1e``; their node is then ``node``).
        torch_numbers: where torch's function form takes Python numbers (binary rows):
            ``"tensor_scalar"`` (``torch.fmod(t, 2)``, not ``(2, t)``), ``"tensors"``
            (neither: ``torch.atan2(t, 2)`` is a TypeError) or ``"one_tensor"`` (either,
            not both: ``torch.remainder(2, t)``).
        node: the backward node's name where torch's is not
            ``<Torch name>Backward0`` (``Log1PBackward0``).
        doc: one line for the generated docstrings.
        outputs: the number of results (2 for ``frexp``, ``modf``); ``deriv`` then
            gives, for each input, a tuple of expressions, one per result, which may
            read the results as ``ans0``, ``ans1``.
    """
    name: str
    arity: int
    deriv: Optional[tuple]
    numpy: Optional[str] = None
    numpy_aliases: tuple = ()
    torch: Optional[str] = None
    torch_aliases: tuple = ()
    complex: str = "real"
    dtype: str = "float"
    domain: tuple = ()
    kernel: str = ""
    array_api: Optional[str] = None
    cuda: Optional[str] = None
    numba: Optional[str] = ""
    numba_complex: Optional[str] = None
    numba_float16: bool = True
    fuse: bool = False
    torch_inplace: bool = True
    torch_out: bool = True
    torch_numbers: str = "tensor_scalar"
    torch_special: Optional[str] = None
    node: Optional[str] = None
    doc: str = ""
    outputs: int = 1

    @property
    def saves(self) -> str:
        """What reverse mode saves: ``"x"``, ``"ans"``, ``"x_ans"`` or ``"none"``."""
        used = set()
        for d in self.deriv or ():
            for e in (d if isinstance(d, tuple) else (d,)):
                if e not in (None, "0", "1", "linear"):
                    used |= {n.id for n in ast.walk(ast.parse(e, mode="eval"))
                             if isinstance(n, ast.Name)}
        x = bool(used & {"x", "y"})
        a = bool(used & {"ans", "ans0", "ans1"})
        return "x_ans" if x and a else "x" if x else "ans" if a else "none"

    @property
    def differentiable(self) -> bool:
        return self.deriv is not None

    @property
    def numba_expr(self) -> Optional[str]:
        if self.numba is None:
            return None
        if self.numba:
            return self.numba
        args = ", ".join("{%d}" % i for i in range(self.arity))
        sc, _, fn = self.kernel.rpartition(".")
        if sc == "scipy.special":
            return f'_sp{self.arity}("sc_{fn}", {args})'
        return f"{self.kernel}({args})"


def node_name(op: Op) -> str:
    """torch's backward node name of a row: ``SinhBackward0`` for ``sinh``."""
    if op.node:
        return op.node
    if op.torch is None:  # (indexing None raised TypeError here before)
        raise TypeError(f"row {op.name!r} has no torch name, so no backward node")
    return op.torch[0].upper() + op.torch[1:] + "Backward0"


# ------------------------------------------------------------------------------------
# The functions a fused derivative kernel may call: name -> (NumPy/numba, array API, CUDA).
# (The ftrans rules may call any op of ``ftrans.primitives``.)
# ------------------------------------------------------------------------------------
VOCABULARY = {
    "sin": ("np.sin", "sin", "sin"), "cos": ("np.cos", "cos", "cos"),
    "sinh": ("np.sinh", "sinh", "sinh"), "cosh": ("np.cosh", "cosh", "cosh"),
    "exp": ("np.exp", "exp", "exp"), "log": ("np.log", "log", "log"),
    "sqrt": ("np.sqrt", "sqrt", "sqrt"),
}

_UNIT = (("U", -0.8, 0.8, -0.5, 0.5),)


def _r(name, arity, deriv, **kw):
    kw.setdefault("domain", (("U", -2.0, 2.0),) * arity)
    kw.setdefault("numpy", name)
    kw.setdefault("kernel", "np." + kw["numpy"] if kw["numpy"] else "")
    if "array_api" not in kw:
        kw["array_api"] = kw["numpy"]
    if "cuda" not in kw:
        kw["cuda"] = kw["numpy"]
    return Op(name, arity, deriv, **kw)


_GUARD0 = "where(eq(x, 0), 1, x)"  # x with its zeros replaced by 1 (a guarded divisor)
_ORIGIN = "logical_and(eq(x, 0), eq(y, 0))"  # the point (0, 0)
_INF_TIE = "logical_and(isinf(x), eq(x, y))"  # x == y == +-inf
_LN2 = "0.6931471805599453"  # log(2): exp(0 - log 2) = 1/2

ROWS: tuple = (
    # -- holomorphic unary functions: derivative f'(x) --------------------------------
    _r("exp", 1, ("ans",), torch="exp", complex="holomorphic", fuse=True,
       numba_complex="_cexp({0})", numba="_exp({0})", domain=(("U", -2, 2),),
       numba_float16=False,
       doc="Exponential."),
    _r("log", 1, ("1/x",), torch="log", complex="holomorphic", fuse=True,
       numba_complex="_clog({0})", domain=(("U", 0.5, 2.5, -1, 1),), doc="Natural logarithm."),
    _r("log1p", 1, ("1/(1 + x)",), torch="log1p", complex="holomorphic", fuse=True,
       node="Log1PBackward0", domain=(("U", -0.5, 2.0, -0.4, 0.4),), numba_complex="_clog1p({0})",
       doc="``log(1 + x)``, accurate near 0."),
    _r("expm1", 1, ("ans + 1",), torch="expm1", complex="holomorphic", fuse=True,
       domain=(("U", -2, 2),), numba_float16=False,
       numba_complex="_cexpm1({0})",
       doc="``exp(x) - 1``, accurate near 0."),
    _r("sin", 1, ("cos(x)",), torch="sin", complex="holomorphic", fuse=True,
       numba_complex="_csin({0})", domain=(("U", -3, 3, -1, 1),), numba_float16=False,
       doc="Sine (radians)."),
    _r("cos", 1, ("-sin(x)",), torch="cos", complex="holomorphic", fuse=True,
       numba_complex="_ccos({0})", domain=(("U", -3, 3, -1, 1),), numba_float16=False,
       doc="Cosine (radians)."),
    _r("tan", 1, ("1 + ans*ans",), torch="tan", complex="holomorphic", fuse=True,
       domain=(("U", -1.2, 1.2, -0.5, 0.5),), numba_float16=False,
       numba_complex="_ctan({0})",
       doc="Tangent (radians)."),
    _r("tanh", 1, ("1 - ans*ans",), torch="tanh", complex="holomorphic", fuse=True,
       numba_complex="_ctanh({0})", numba="_tanh({0})", domain=(("U", -2, 2, -0.6, 0.6),),
       doc="Hyperbolic tangent."),
    _r("sinh", 1, ("cosh(x)",), torch="sinh", complex="holomorphic", fuse=True,
       domain=(("U", -2, 2, -1, 1),), numba_complex="_csinh({0})",
       doc="Hyperbolic sine."),
    _r("cosh", 1, ("sinh(x)",), torch="cosh", complex="holomorphic", fuse=True,
       domain=(("U", -2, 2, -1, 1),), numba_float16=False,
       numba_complex="_ccosh({0})",
       doc="Hyperbolic cosine."),
    _r("arcsin", 1, ("1/sqrt(1 - x*x)",), numpy_aliases=("asin",), torch="asin",
       torch_aliases=("arcsin",), complex="holomorphic", fuse=True, array_api="asin",
       cuda="asin", domain=_UNIT, numba_float16=False,
       numba_complex="_casin({0})",
       doc="Inverse sine (radians)."),
    _r("arccos", 1, ("-1/sqrt(1 - x*x)",), numpy_aliases=("acos",), torch="acos",
       torch_aliases=("arccos",), complex="holomorphic", fuse=True, array_api="acos",
       cuda="acos", domain=_UNIT, numba_complex="_cacos({0})",
       doc="Inverse cosine (radians)."),
    _r("arctan", 1, ("1/(1 + x*x)",), numpy_aliases=("atan",), torch="atan",
       torch_aliases=("arctan",), complex="holomorphic", fuse=True, array_api="atan",
       cuda="atan", domain=(("U", -2, 2, -0.5, 0.5),), numba_float16=False,
       numba_complex="_catan({0})",
       doc="Inverse tangent (radians)."),
    _r("sqrt", 1, ("1/(ans + ans)",), torch="sqrt", complex="holomorphic", fuse=True,
       numba_complex="_csqrt({0})", domain=(("U", 0.3, 2.5, -1, 1),),
       doc="Square root (derivative inf at 0)."),
    # -- real binary functions -------------------------------------------------------
    # (at the origin, the minimum-norm subgradient 0 -- DESIGN's convention -- not NaN:
    # the numerator is 0 there and the guarded denominator 1)
    _r("arctan2", 2, ("y/where(" + _ORIGIN + ", 1, x*x + y*y)",
                      "-x/where(" + _ORIGIN + ", 1, x*x + y*y)"),
       numpy_aliases=("atan2",),
       torch="atan2", torch_aliases=("arctan2",), array_api="atan2", cuda="atan2",
       domain=(("away", 0.3, 2), ("U", -2, 2)),
       torch_numbers="tensors",
       doc="Four-quadrant inverse tangent of ``x1/x2`` (radians)."),
    # (at x1 == x2 == +-inf, 1/2 each: the value along the diagonal, not NaN)
    _r("logaddexp", 2, ("exp(where((t := " + _INF_TIE + "), 0, x) - where(t, " + _LN2 + ", ans))",
                        "exp(where((t := " + _INF_TIE + "), 0, y) - where(t, " + _LN2 + ", ans))"),
       torch="logaddexp", cuda=None,
       torch_inplace=False,
       torch_numbers="tensors",
       doc="``log(exp(x1) + exp(x2))`` without overflow."),
    # -- NumPy's remaining elementwise functions, with their torch twins ---------------
    _r("copysign", 2, ("where(eq(x, 0), 0, ans/" + _GUARD0 + ")", "0"), torch="copysign",
       domain=(("away", 0.2, 2), ("away", 0.2, 2)),
       doc="``abs(x1)`` with the sign of ``x2`` (derivative in ``x1``: 0 at 0, torch's convention)."),
    _r("trunc", 1, ("0",), torch="trunc", torch_aliases=("fix",), numpy_aliases=("fix",),
       dtype="same", domain=(("offint",),), doc="Round toward zero."),
    _r("rint", 1, ("0",), torch=None, dtype="same", array_api="round", domain=(("offint",),),
       doc="Round to the nearest integer (ties to even)."),
    _r("heaviside", 2, ("0", "0"), torch="heaviside", array_api=None, cuda=None,
       numba="_heaviside({0}, {1})", dtype="same", domain=(("away", 0.2, 2), ("U", 0, 1)),
       torch_numbers="tensors",
       doc="Heaviside step function: 0 for ``x1 < 0``, ``x2`` at 0, 1 for ``x1 > 0``."),
    _r("fmax", 2, ("logical_or(ge(x, y), isnan(y))", "logical_not(logical_or(ge(x, y), isnan(y)))"),
       torch="fmax", array_api=None, cuda="fmax", dtype="same", torch_inplace=False,
       domain=(("lattice", 0.5, 0.25), ("lattice", 0.5, 0.0)),
       torch_numbers="tensors",
       doc="Elementwise maximum ignoring NaNs (gradient to ``x1`` at ties, torch's convention)."),
    _r("fmin", 2, ("logical_or(le(x, y), isnan(y))", "logical_not(logical_or(le(x, y), isnan(y)))"),
       torch="fmin", array_api=None, cuda="fmin", dtype="same", torch_inplace=False,
       domain=(("lattice", 0.5, 0.25), ("lattice", 0.5, 0.0)),
       torch_numbers="tensors",
       doc="Elementwise minimum ignoring NaNs (gradient to ``x1`` at ties, torch's convention)."),
    _r("fmod", 2, ("1", "-trunc(x/y)"), torch="fmod", array_api=None, cuda="fmod",
       dtype="same", domain=(("offint",), ("lattice", 2.0, 1.0)),
       doc="C's ``fmod``: remainder with the sign of ``x1``."),
    _r("remainder", 2, ("1", "-floor(x/y)"), numpy_aliases=("mod",), torch="remainder",
       array_api="remainder", cuda=None, numba="_remainder({0}, {1})", dtype="same",
       kernel="np.remainder",
       domain=(("offint",), ("lattice", 2.0, 1.0)),
       torch_numbers="one_tensor",
       doc="Python's ``%``: remainder with the sign of ``x2``."),
    # (torch's ldexp is the composite ``input * 2**other``, with float promotion of
    # ``other``: no torch twin of this integer-exponent primitive)
    _r("ldexp", 2, ("linear", None), torch=None, array_api=None, cuda="ldexp",
       numba="_ldexp({0}, {1})", dtype="same", domain=(("U", -2, 2), ("int", -3, 4)),
       doc="``x1 * 2**x2`` for an integer exponent ``x2`` (linear in ``x1``)."),
    # nextafter(x, y) = x +- ulp(x): derivative 1 in x, 0 in y almost everywhere
    _r("nextafter", 2, ("1", "0"), torch="nextafter", array_api="nextafter",
       cuda="nextafter", dtype="same", domain=(("U", -2, 2), ("U", -2, 2)),
       torch_numbers="tensors",
       numba_float16=False,
       doc="The next floating-point value after ``x1`` toward ``x2``."),
    # (test points inside one binade: spacing jumps at powers of 2)
    _r("spacing", 1, ("0",), torch=None, array_api=None, cuda=None, dtype="same",
       domain=(("away", 1.1, 1.9),), numba_float16=False,
       doc="Distance to the nearest adjacent number (derivative 0)."),
    _r("signbit", 1, None, torch="signbit", array_api="signbit", cuda="signbit",
       dtype="bool", torch_inplace=False, domain=(("special",),),
       doc="True where the sign bit is set (-0.0 and -inf included)."),
    _r("isneginf", 1, None, torch="isneginf", array_api=None, cuda=None,
       numba="_isneginf({0})", dtype="bool", torch_inplace=False, kernel="np.isneginf",
       domain=(("special",),),
       doc="True where ``x`` is ``-inf``."),
    _r("isposinf", 1, None, torch="isposinf", array_api=None, cuda=None,
       numba="_isposinf({0})", dtype="bool", torch_inplace=False, kernel="np.isposinf",
       domain=(("special",),),
       doc="True where ``x`` is ``+inf``."),
    # -- two results ----------------------------------------------------------------
    # frexp: x = m * 2**e; dm/dx = 2**-e = m/x exactly (1 at 0, where m = e = 0)
    _r("frexp", 1, (("where(eq(x, 0), 1, ans0/" + _GUARD0 + ")", "0"),), outputs=2,
       torch=None, array_api=None, cuda=None, numba="_frexp({0})", dtype="same",
       domain=(("away", 0.2, 3),),
       doc="Mantissa in [0.5, 1) and integer exponent: ``x = m * 2**e``."),
    _r("modf", 1, (("1", "0"),), outputs=2, torch=None, array_api=None, cuda=None,
       numba="_modf({0})", dtype="same", domain=(("offint",),),
       doc="Fractional and integral parts, both with the sign of ``x``."),
    # -- modified Bessel functions of the first kind (DLMF 10.29.3, 10.34) -------------
    _r("i0", 1, ("i1(x)",), torch="i0", kernel="scipy.special.i0", array_api=None,
       cuda=None, numba_float16=False, domain=(("U", -3, 3),),
       doc="Modified Bessel function of the first kind, order 0 (DLMF 10.25.2)."),
    _r("i1", 1, ("where(eq(x, 0), 0.5, i0(x) - ans/" + _GUARD0 + ")",), numpy=None,
       torch=None, torch_special="i1", node="SpecialI1Backward0",
       kernel="scipy.special.i1", array_api=None, cuda=None, numba_float16=False,
       domain=(("U", -3, 3),), doc="Modified Bessel function of the first kind, order 1."),
    _r("i0e", 1, ("i1e(x) - sign(x)*ans",), numpy=None, torch=None, torch_special="i0e",
       node="SpecialI0EBackward0",
       kernel="scipy.special.i0e", array_api=None, cuda=None, numba_float16=False,
       domain=(("away", 0.2, 3),), doc="Exponentially scaled ``i0``: ``exp(-abs(x)) * i0(x)``."),
    _r("i1e", 1, ("where(eq(x, 0), 0.5, i0e(x) - sign(x)*ans - ans/" + _GUARD0 + ")",),
       numpy=None, torch=None, torch_special="i1e", node="SpecialI1EBackward0",
       kernel="scipy.special.i1e", array_api=None, cuda=None,
       numba_float16=False, domain=(("away", 0.2, 3),),
       doc="Exponentially scaled ``i1``: ``exp(-abs(x)) * i1(x)``."),
)

#: The elementwise primitives whose rules are written by hand in their own files (their
#: derivatives are not a single expression: branch conventions, symbolic zeros,
#: integer exponents); the rows give their other facets.
CUSTOM: tuple = (
    _r("neg", 1, ("linear",), numpy="negative", torch="neg", torch_aliases=("negative",),
       complex="holomorphic", dtype="same"),
    _r("add", 2, ("1", "1"), torch="add", complex="holomorphic", dtype="same"),
    _r("sub", 2, ("1", "-1"), numpy="subtract", torch="sub", complex="holomorphic",
       dtype="same"),
    _r("mul", 2, ("y", "x"), numpy="multiply", torch="mul", complex="holomorphic",
       dtype="same"),
    _r("div", 2, ("1/y", "-ans/y"), numpy="divide", torch="div", complex="holomorphic"),
    _r("pow", 2, ("y*x**(y-1)", "ans*log(x)"), numpy="power", numpy_aliases=("pow",),
       torch="pow", complex="holomorphic", dtype="same", node="PowBackward1"),
    _r("maximum", 2, None, torch="maximum", dtype="same"),
    _r("minimum", 2, None, torch="minimum", dtype="same"),
    _r("abs", 1, None, numpy="absolute", torch="abs", complex="holomorphic", dtype="same"),
    _r("sign", 1, None, torch="sgn", complex="holomorphic", dtype="same"),
    _r("conj", 1, ("linear",), numpy="conjugate", torch="conj", complex="holomorphic",
       dtype="same"),
)

_BY_NAME = {op.name: op for op in ROWS + CUSTOM}


def by_name(name: str) -> Op:
    """The row of the primitive ``name`` (KeyError naming the known rows)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise KeyError(f"no elementwise row named {name!r}; rows: {sorted(_BY_NAME)}") from None


# ------------------------------------------------------------------------------------
# Derivative expressions -> ftrans rules
# ------------------------------------------------------------------------------------
class _ToOps(ast.NodeTransformer):
    """``a + b`` -> ``add(a, b)`` ...: every operator becomes a primitive's op."""

    _BIN = {ast.Add: "add", ast.Sub: "sub", ast.Mult: "mul", ast.Div: "div"}

    def visit_BinOp(self, node):
        self.generic_visit(node)
        fn = self._BIN.get(type(node.op))
        if fn is None:
            raise ValueError(f"operator {type(node.op).__name__} not in the expression language")
        return ast.Call(ast.Name(fn, ast.Load()), [node.left, node.right], [])

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if isinstance(node.op, ast.USub):
            if isinstance(node.operand, ast.Constant):
                return ast.Constant(-node.operand.value)
            return ast.Call(ast.Name("neg", ast.Load()), [node.operand], [])
        raise ValueError("only unary minus is in the expression language")


def compile_rule(expr: str, namespace: dict[str, Any]) -> Callable[..., Any]:
    """``f(ans, x[, y, ans0, ans1])`` computing ``expr`` with the ops of ``namespace``.

    Constants are Python floats (weak: they take the operands' dtype)."""
    tree = ast.parse(expr, mode="eval")
    for n in ast.walk(tree):
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            n.value = float(n.value)
    body = ast.unparse(ast.fix_missing_locations(_ToOps().visit(tree)))
    # a real function whose globals are ``namespace`` (names resolved at call time, so
    # the namespace may be filled after this call): no per-call evaluation cost; its
    # arguments are the rules' (``ans`` first, then the inputs)
    return eval(compile(f"lambda ans, x, y=None, ans0=None, ans1=None: {body}",
                        f"<derivative {expr}>", "eval"), namespace)


# ------------------------------------------------------------------------------------
# Derivative expressions -> kernel sources (``ftrans/kernels/_generated.py``)
# ------------------------------------------------------------------------------------
def _kernel_expr(node, target):
    """Source text of an expression node for ``target`` in "numpy", "xp", "cuda"."""
    k = {"numpy": 0, "xp": 1, "cuda": 2}[target]
    if isinstance(node, ast.BinOp):
        op = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}[type(node.op)]
        return f"({_kernel_expr(node.left, target)} {op} {_kernel_expr(node.right, target)})"
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return f"(-{_kernel_expr(node.operand, target)})"
    if isinstance(node, ast.Name):
        if node.id == "ans":
            return "y"
        if node.id == "x":
            return "x"
        raise ValueError(f"{node.id!r} cannot appear in a fused derivative")
    if isinstance(node, ast.Constant):
        if node.value != 1:
            raise ValueError("a fused derivative may use no literal but 1")
        return {"numpy": "one", "xp": "1", "cuda": "T(1)"}[target]
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        if node.func.id not in VOCABULARY:
            raise ValueError(f"{node.func.id!r} has no fused-kernel form")
        fn = VOCABULARY[node.func.id][k]
        args = ", ".join(_kernel_expr(a, target) for a in node.args)
        return f"s.{fn}({args})" if target == "xp" else f"{fn}({args})"
    raise ValueError(f"unsupported expression {ast.dump(node)}")


def _fused_forms(expr, target):
    """``g * f'(x)`` written the way each kernel computes it: ``1/E`` -> ``g / E``,
    ``-1/E`` -> ``-g / E``, ``-E`` -> ``-g * E``, else ``g * E`` (CUDA: the derivative
    conjugated with ``{c}`` for complex types)."""
    node = ast.parse(expr, mode="eval").body
    c = "{c}" if target == "cuda" else ""
    sign, op = "", "*"
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        left = node.left
        if isinstance(left, ast.UnaryOp) and isinstance(left.operand, ast.Constant):
            left = ast.Constant(-left.operand.value)
        if isinstance(left, ast.Constant) and left.value in (1, -1):
            sign, op, node = ("-" if left.value == -1 else ""), "/", node.right
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        sign, node = "-", node.operand
    inner = _kernel_expr(node, target)
    if not (isinstance(node, (ast.BinOp, ast.UnaryOp)) and inner.startswith("(")):
        inner = f"({inner})"
    return f"{sign}g {op} {c}{inner}"


def generate_kernels() -> str:
    """The source of ``ftrans/kernels/_generated.py`` from :data:`ROWS`."""
    lines = [
        '"""Kernel tables generated from the elementwise operation table.',
        "",
        "Generated by ``python -m ftrans.primitives.optable --write`` from",
        "``ftrans/primitives/optable.py``; do not edit (tests/primitives/test_optable.py",
        'checks that this file is current)."""',
        "from collections.abc import Callable",
        "from typing import Any",
        "",
        "import numpy as np",
        "",
        "# Fused derivative products g * f'(x) (y = f(x)); ``one`` is 1 in the operands'",
        "# dtype, so numba keeps float32 in float32.  Module-level functions: numba's",
        "# on-disk cache keys stay stable.",
    ]
    fused = [op for op in ROWS if op.fuse]
    for op in fused:
        lines.append(f"def d_{op.name}(g, x, y, one): return {_fused_forms(op.deriv[0], 'numpy')}")
    lines += ["", "", "#: name -> fused NumPy/numba derivative product",
              "VJP = {" + ", ".join(f'"{op.name}": d_{op.name}' for op in fused) + "}",
              "#: formulas that read the primal output ``ans``",
              "VJP_USES_ANS = frozenset({" + ", ".join(
                  f'"{op.name}"' for op in fused if "ans" in op.saves) + "})",
              "#: the same products in an array-API namespace ``s``",
              "VJP_STD = {"]
    lines += [f'    "{op.name}": lambda s, g, x, y: {_fused_forms(op.deriv[0], "xp")},'
              for op in fused]
    lines += ["}", "#: the same products as CUDA expressions in g, x, y of one type T;",
              '#: "{c}" is "conj" for complex T and "" for real T', "VJP_CUDA = {"]
    lines += [f'    "{op.name}": "{_fused_forms(op.deriv[0], "cuda")}",' for op in fused]
    lines += ["}", "", "#: primitive name -> NumPy function (the CPU kernels' operation tables)"]
    for arity, table in ((1, "UNARY"), (2, "BINARY")):
        rows = [op for op in ROWS if op.arity == arity and op.kernel.startswith("np.")]
        lines.append(f"{table}: dict[str, Callable[..., Any]] = {{"
                     + ", ".join(f'"{op.name}": {op.kernel}' for op in rows) + "}")
    lines.append("#: primitive name -> scipy.special function name (SciPy-backed rows)")
    lines.append("SPECIAL = {" + ", ".join(
        f'"{op.name}": "{op.kernel.rpartition(".")[2]}"' for op in ROWS
        if op.kernel.startswith("scipy.special.")) + "}")
    for arity, table in ((1, "UNARY_STD"), (2, "BINARY_STD")):
        rows = [op for op in ROWS if op.arity == arity and op.array_api]
        lines.append(f"#: primitive name -> array-API standard name ({arity} operand(s))")
        lines.append(f"{table} = {{" + ", ".join(f'"{op.name}": "{op.array_api}"' for op in rows) + "}")
    return "\n".join(lines) + "\n"


GENERATED_PATH = os.path.join(os.path.dirname(os.path.dirname(__file__)), "kernels",
                              "_generated.py")


def _main(argv):
    src = generate_kernels()
    if "--write" in argv:
        with open(GENERATED_PATH, "w", encoding="utf-8") as f:
            f.write(src)
        print(f"wrote {GENERATED_PATH}")
    else:
        sys.stdout.write(src)


if __name__ == "__main__":
    _main(sys.argv[1:])
