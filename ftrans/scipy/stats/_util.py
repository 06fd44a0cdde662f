"""Shared argument handling for :mod:`ftrans.scipy.stats` (not public).

* :func:`promote`: the arguments as arrays of one inexact dtype (JAX's
  ``promote_args_inexact``): Python scalars are weak (``norm.logpdf(x32, 0, 1)`` stays
  float32), integer/bool arrays become float64, complex input raises ``TypeError``.
* the double-``where`` idiom throughout: an operand is replaced by a harmless value where
  a branch is not taken, so the untaken branch's derivative is never ``0 * inf = nan``.
* :func:`continuous` / :func:`discrete_method`: SciPy's methods (argument order, ``loc``,
  ``scale``, invalid parameters) from the standardized function of each distribution.
* :func:`nan_if`: SciPy's convention for invalid parameters (``scale <= 0``, ``p > 1``,
  ...): the result is ``nan`` there, no exception (as ``scipy.stats`` and
  ``jax.scipy.stats``; parameters may be tracers, whose values are unknown when traced).
"""
from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ...core import Tracer, result_type
from ... import numpy as fnp
from ... import primitives as P
from ...typing import Array, ArrayLike

#: a standardized function ``std(z, *shapes)`` of a distribution
StdFun = Callable[..., Array]
#: a public method ``<dist>.<method>(x, *shapes, loc=0, scale=1)``
Method = Callable[..., Array]

NAN = float("nan")
INF = float("inf")


def _arr(x: ArrayLike) -> Any:
    if isinstance(x, (Tracer, bool, int, float)) or hasattr(x, "__cuda_array_interface__"):
        return x
    return np.asarray(x)


def promote(name: str, *args: ArrayLike) -> list[Array]:
    """``args`` converted to one inexact dtype (see the module docstring)."""
    vals = [_arr(a) for a in args]
    for a in vals:
        kind = np.dtype(getattr(a, "dtype", type(a))).kind
        if kind == "c" or isinstance(a, complex):
            raise TypeError(f"scipy.stats.{name}: the arguments must be real; got dtype "
                            f"{np.dtype(getattr(a, 'dtype', type(a)))}. Pass real arrays.")
        if kind not in "biuf":
            raise TypeError(f"scipy.stats.{name}: expected real numbers or arrays, got "
                            f"{type(a).__name__} of dtype {np.dtype(getattr(a, 'dtype', object))}")
    dt = np.dtype(result_type(*vals))
    if dt.kind != "f":
        dt = np.dtype(np.float64)
    return [P.convert_element_type(a if not isinstance(a, (bool, int, float)) else
                                   np.asarray(a, dt), dt) for a in vals]


def discrete(x: Array) -> Array:
    """Discrete data / integer parameters: held fixed under differentiation."""
    return P.stop_gradient(x)


def const(v: ArrayLike, like: Array) -> Array:
    """The Python number (or a ``where`` of Python numbers) ``v`` in ``like``'s dtype (so a
    float32 computation stays float32)."""
    return P.convert_element_type(fnp.asarray(v), like.dtype)


def nan_if(bad: Array, out: Array) -> Array:
    """``nan`` where ``bad`` (invalid parameters), ``out`` elsewhere."""
    return fnp.where(bad, NAN, out)


def is_int(k: Array) -> Array:
    """``k`` is a whole number (discrete support)."""
    return fnp.floor(k) == k


def log1mexp(a: Array) -> Array:
    """``log(1 - exp(a))`` for ``a <= 0`` (Maechler 2012: ``log(-expm1(a))`` near 0,
    ``log1p(-exp(a))`` below ``-log 2``)."""
    near = a > -np.log(2.0)
    an = fnp.where(near, a, -1.0)
    af = fnp.where(near, -1.0, a)
    return fnp.where(near, fnp.log(-fnp.expm1(an)), fnp.log1p(-fnp.exp(af)))


_WHAT = {"logpdf": "Log of the probability density", "pdf": "Probability density",
         "logpmf": "Log of the probability mass", "pmf": "Probability mass",
         "cdf": "Cumulative distribution function", "logcdf": "Log of the cdf",
         "sf": "Survival function ``1 - cdf``", "logsf": "Log of the survival function",
         "ppf": "Percent point function (inverse of the cdf)"}
_FIRST = {"ppf": "q : array_like\n    Probabilities in [0, 1].",
          "logpmf": "k : array_like\n    Integer-valued data (held fixed: no derivative).",
          "pmf": "k : array_like\n    Integer-valued data (held fixed: no derivative).",
          }


def doc(dist: str, params: str, formula: str | None, discrete_data: bool = False
        ) -> Callable[[Method], Method]:
    """Decorator: a NumPy-style docstring for ``scipy.stats.<dist>.<method>``.

    ``params``: the parameter lines after the data argument (``"loc : array_like ..."``);
    ``formula``: how the value is computed (the composition, its source)."""
    formula = textwrap.fill(" ".join((formula or "").split()), 88)

    def deco(f: Method) -> Method:
        m = f.__name__
        first = _FIRST.get(m) or ("k : array_like\n    Integer-valued data (held fixed: "
                                  "no derivative)." if discrete_data else
                                  "x : array_like\n    Points at which to evaluate.")
        f.__doc__ = (
            f"{_WHAT[m]} of ``scipy.stats.{dist}`` (same signature and conventions).\n\n"
            f"{formula}\n\n"
            f"Parameters\n----------\n{first}\n{params}\n\n"
            "Returns\n-------\nArray\n"
            "    The broadcast shape of the arguments, in their common float dtype (Python\n"
            "    scalars do not promote; integer input gives float64).  ``nan`` where a\n"
            "    parameter is invalid (SciPy's convention, no exception).\n\n"
            "Raises\n------\nTypeError\n    For complex or non-numeric input.\n\n"
            f"References\n----------\nSciPy's ``scipy.stats.{dist}`` documentation; "
            "``jax.scipy.stats``.")
        return f
    return deco




def _shape_doc(shapes: Sequence[str], fixed: Sequence[str] = ()) -> str:
    lines = []
    for p in shapes:
        tail = " (held fixed: no derivative)" if p in fixed else ""
        lines.append(f"{p} : array_like\n    Shape parameter{tail}.")
    return "\n".join(lines)


LOC_SCALE = ("loc : array_like, optional\n    Location (default 0).\n"
             "scale : array_like, optional\n    Scale > 0 (default 1).")
LOC = "loc : array_like, optional\n    Integer shift of the support (default 0)."


def _split(name: str, shapes: Sequence[str], args: Sequence[ArrayLike],
           kw: dict[str, ArrayLike], tail: Sequence[str]) -> list[ArrayLike]:
    """SciPy's calling convention: shape parameters, then ``tail`` (``loc``/``scale``),
    positionally or by keyword."""
    names = list(shapes) + list(tail)
    if len(args) > len(names):
        raise TypeError(f"scipy.stats.{name} takes at most {len(names) + 1} arguments "
                        f"({', '.join(['x'] + names)}); got {len(args) + 1}")
    vals = dict(zip(names, args))
    for k, v in kw.items():
        if k not in names or k in vals:
            raise TypeError(f"scipy.stats.{name}: unexpected or repeated argument {k!r}; "
                            f"the arguments are {', '.join(['x'] + names)}")
        vals[k] = v
    missing = [p for p in shapes if p not in vals]
    if missing:
        raise TypeError(f"scipy.stats.{name}: missing shape parameter(s) "
                        f"{', '.join(missing)}")
    defaults: dict[str, ArrayLike] = {"loc": 0, "scale": 1}
    return [vals[p] if p in vals else defaults[p] for p in names]


def _signature(first: str, shapes: Sequence[str], tail: Sequence[str]) -> inspect.Signature:
    """SciPy's signature of a method: the data, the shapes, then ``loc``(/``scale``) with
    their defaults (the generated function takes ``*args, **kw`` and checks them)."""
    pos = inspect.Parameter.POSITIONAL_OR_KEYWORD
    defaults = {"loc": 0, "scale": 1}
    params = [inspect.Parameter(first, pos, annotation="ArrayLike")]
    params += [inspect.Parameter(p, pos, annotation="ArrayLike") for p in shapes]
    params += [inspect.Parameter(p, pos, default=defaults[p], annotation="ArrayLike")
               for p in tail]
    return inspect.Signature(params, return_annotation="Array")


def continuous(dist: str, method: str, shapes: Sequence[str], std: StdFun,
               valid: Callable[..., Array] | None = None, formula: str | None = ""
               ) -> Method:
    """``scipy.stats.<dist>.<method>(x, *shapes, loc=0, scale=1)`` from ``std(z, *shapes)``
    on the standardized variable ``z = (x - loc) / scale``.

    ``method`` "logpdf": ``std(z) - log(scale)``; "cdf"/"sf"/"logcdf"/"logsf": ``std(z)``;
    "ppf": ``loc + scale * std(q)`` with ``nan`` for ``q`` outside [0, 1].  ``valid(*shapes)``
    is the parameter domain (``nan`` outside it, as ``scale <= 0``)."""
    name = f"{dist}.{method}"

    def f(x: ArrayLike, *args: ArrayLike, **kw: ArrayLike) -> Array:
        vals = promote(name, x, *_split(name, shapes, args, kw, ("loc", "scale")))
        xa, sh, loc, scale = vals[0], vals[1:-2], vals[-2], vals[-1]
        bad = fnp.logical_not(scale > 0)
        if valid is not None:
            bad = bad | fnp.logical_not(valid(*sh))
        s = fnp.where(bad, 1.0, scale)
        if method == "ppf":
            bad = bad | fnp.logical_not((xa >= 0) & (xa <= 1))
            return nan_if(bad, loc + s * std(xa, *sh))
        out = std((xa - loc) / s, *sh)
        if method == "logpdf":
            out = out - fnp.log(s)
        return nan_if(bad, out)
    f.__name__ = f.__qualname__ = method
    f.__module__ = f"ftrans.scipy.stats.{dist}"
    sig = _signature("q" if method == "ppf" else "x", shapes, ("loc", "scale"))
    f.__signature__ = sig  # type: ignore[attr-defined]
    return doc(dist, "\n".join(filter(None, [_shape_doc(shapes), LOC_SCALE])), formula)(f)


def exp_of(logf: Method, method: str) -> Method:
    """``exp(logf(...))`` (``pdf`` from ``logpdf``, ``pmf`` from ``logpmf``)."""
    def f(*args: ArrayLike, **kw: ArrayLike) -> Array:
        return fnp.exp(logf(*args, **kw))
    f.__name__ = f.__qualname__ = method
    f.__module__ = logf.__module__
    f.__signature__ = inspect.signature(logf)  # type: ignore[attr-defined]
    what = "density" if method == "pdf" else "mass"
    f.__doc__ = (logf.__doc__ or "").replace(_WHAT["log" + method], _WHAT[method], 1).replace(
        "\n\n", f"\n\n``exp({logf.__name__})`` with the log-{what}\n", 1)
    return f


def log_of(cf: Method, method: str) -> Method:
    """``log(cf(...))`` (``logcdf``/``logsf`` where no more accurate form is used)."""
    def f(*args: ArrayLike, **kw: ArrayLike) -> Array:
        return fnp.log(cf(*args, **kw))
    f.__name__ = f.__qualname__ = method
    f.__module__ = cf.__module__
    f.__signature__ = inspect.signature(cf)  # type: ignore[attr-defined]
    f.__doc__ = (cf.__doc__ or "").replace(_WHAT[cf.__name__], _WHAT[method], 1).replace(
        "\n\n", f"\n\n``log({cf.__name__})``:  ", 1)
    return f


def discrete_method(dist: str, method: str, shapes: Sequence[str], std: StdFun,
                    valid: Callable[..., Array], fixed: Sequence[str] = (),
                    formula: str | None = "") -> Method:
    """``scipy.stats.<dist>.<method>(k, *shapes, loc=0)`` from ``std(k - loc, *shapes)``.

    ``k`` (for ``ppf``: ``q``, which is continuous) and the parameters named in ``fixed``
    (integer-valued, as ``binom``'s ``n``) are held fixed under differentiation; the rest
    are differentiable.  ``valid(*shapes)``: the parameter domain (``nan`` outside it);
    for ``ppf`` also ``q`` outside [0, 1]."""
    name = f"{dist}.{method}"

    def f(k: ArrayLike, *args: ArrayLike, **kw: ArrayLike) -> Array:
        vals = promote(name, k, *_split(name, shapes, args, kw, ("loc",)))
        ka, sh, loc = vals[0], list(vals[1:-1]), discrete(vals[-1])
        sh = [discrete(v) if p in fixed else v for p, v in zip(shapes, sh)]
        bad = fnp.logical_not(valid(*sh))
        if method == "ppf":
            bad = bad | fnp.logical_not((ka >= 0) & (ka <= 1))
            return nan_if(bad, std(ka, *sh) + loc)
        return nan_if(bad, std(discrete(ka) - loc, *sh))
    f.__name__ = f.__qualname__ = method
    f.__module__ = f"ftrans.scipy.stats.{dist}"
    sig = _signature("q" if method == "ppf" else "k", shapes, ("loc",))
    f.__signature__ = sig  # type: ignore[attr-defined]
    params = "\n".join(filter(None, [_shape_doc(shapes, fixed), LOC]))
    return doc(dist, params, formula, discrete_data=True)(f)


# log of a cdf / sf from both tails (no log(1 - tiny) cancellation) ---------------------
def log_tail(main: StdFun, other: StdFun) -> StdFun:
    """``z -> log(main(z))``, computed as ``log1p(-other(z))`` where ``main(z) >= 1/2``
    (``main``/``other``: a cdf and its sf, or the reverse).  Double ``where``: the
    untaken logarithm sees a safe argument, so no derivative is ``nan``."""
    def f(z: Array, *shape: Array) -> Array:
        m = main(z, *shape)
        small = m < 0.5
        o = other(z, *shape)
        return fnp.where(small, fnp.log(fnp.where(small, m, 1.0)),
                         fnp.log1p(-fnp.where(small, 0.0, o)))
    return f


def tail_methods(dist: str, shapes: Sequence[str], cdf: StdFun, sf: StdFun,
                 valid: Callable[..., Array] | None = None,
                 fixed: Sequence[str] | None = None
                 ) -> tuple[Method, Method, Method, Method]:
    """``(cdf, sf, logcdf, logsf)`` of ``scipy.stats.<dist>`` from the standardized ``cdf``
    and ``sf`` (their docstrings give the formulas); the logs from both tails
    (:func:`log_tail`).  ``fixed`` not ``None``: a discrete distribution
    (:func:`discrete_method`, those parameters held fixed)."""
    def make(method: str, fn: StdFun, formula: str | None) -> Method:
        if fixed is None:
            return continuous(dist, method, shapes, fn, valid, formula)
        assert valid is not None, "a discrete distribution gives its parameter domain"
        return discrete_method(dist, method, shapes, fn, valid, fixed, formula)
    return (make("cdf", cdf, cdf.__doc__), make("sf", sf, sf.__doc__),
            make("logcdf", log_tail(cdf, sf), "``log(cdf)``, as ``log1p(-sf)`` where "
                 "cdf >= 1/2."),
            make("logsf", log_tail(sf, cdf), "``log(sf)``, as ``log1p(-cdf)`` where "
                 "sf >= 1/2."))
