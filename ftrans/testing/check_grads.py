"""Finite-difference checks of forward- and reverse-mode derivatives.

``check_grads(f, args, order=2, modes=("fwd", "rev"))`` verifies, at the point
``args``:

* **fwd**: for a random direction ``v`` (complex where the input is complex), the
  JVP ``J v`` equals the central difference ``(f(x + eps v) - f(x - eps v)) / 2eps``;
* **rev**: for a random output cotangent ``u``, the dot-product test
  ``Re<u, J v> == Re<vjp(u), v>`` with ``J v`` from central differences, where
  ``Re<a, b> = Re(sum(conj(a) * b))`` is the real inner product under which ftrans'
  VJP is the adjoint of its JVP (PyTorch's complex convention);
* **order k > 1**: the same checks, recursively, of ``(x, t) -> jvp(f, x, t)[1]`` and
  ``(x, u) -> vjp(f, x)[1](u)`` (as JAX's ``check_grads``): the derivatives of the JVP
  and of the VJP are checked with respect to the primals *and* to the tangent or
  cotangent, so a rule whose derivative in its (co)tangent is wrong is caught too.

Only inexact (float/complex) leaves are perturbed.

Tolerances are relative to the scale of the values.  A JVP leaf passes when
``max|jvp - fd| <= atol + rtol * max|fd| + noise``; the dot-product test when
``|Re<u, J v> - Re<vjp(u), v>| <= rtol * sum|u| |fd| + sum|u| (atol + noise)``,
where ``noise = 16 * finfo.eps * max|f(x +- eps v)| / eps`` bounds the rounding
error of the central difference of each output leaf.  ``atol`` is only a floor
for derivatives that are (close to) zero.  When a check fails these bounds, the
truncation error of the central difference is estimated by Richardson's rule
(``|D(2 eps) - D(eps)|``, elementwise) and added before it is reported: a
derivative that vanishes where a higher one does not (``prod`` at a double zero)
has an ``O(eps^2)`` error no relative tolerance covers.  The defaults depend on the lowest
precision among inputs and outputs: float64 uses ``eps=1e-5``, ``rtol=1e-5``,
``atol=1e-12``; float32 ``eps=3e-3``, ``rtol=3e-2``, ``atol=1e-6``; float16
``eps=3e-2``, ``rtol=1e-1``, ``atol=1e-3`` (the truncation error of central
differences is ``O(eps^2)``, the rounding error ``O(machine_eps / eps)``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..core import Tracer, float0
from ..core.pytree import tree_flatten, tree_unflatten
from ..transforms.jvp import jvp
from ..transforms.vjp import vjp
from ..typing import Array, ArrayLike, PyTree

__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp", "real_inner"]

_DEFAULTS = {  # lowest precision -> (eps, atol, rtol)
    np.dtype(np.float64): (1e-5, 1e-12, 1e-5),
    np.dtype(np.float32): (3e-3, 1e-6, 3e-2),
    np.dtype(np.float16): (3e-2, 1e-3, 1e-1),
}
_NOISE = 16.0  # rounding error of f, in units of finfo.eps * |f|


def _leaves(tree: PyTree) -> list[Any]:
    return tree_flatten(tree)[0]


def _inexact(x: ArrayLike) -> bool:
    return np.asarray(x).dtype.kind in "fc"


def _precision(trees: Sequence[PyTree]) -> np.dtype[Any]:
    worst = np.dtype(np.float64)
    for t in trees:
        for l in _leaves(t):
            d = np.asarray(l).dtype
            if d.kind in "fc":
                r = np.finfo(d).dtype
                if r.itemsize < worst.itemsize:
                    worst = r
    return worst


def real_inner(a: PyTree, b: PyTree) -> float:
    """The real inner product ``Re(sum(conj(a) * b))`` of two pytrees of arrays.

    Summed over pairs of leaves in flattening order; pairs where either leaf is not
    inexact (float/complex) are skipped.  It is the inner product under which ftrans'
    VJP is the adjoint of its JVP (PyTorch's complex convention).

    Parameters
    ----------
    a, b : PyTree
        Trees with the same leaves' shapes (arrays or scalars).

    Returns
    -------
    float
        The sum, computed in complex128.

    Examples
    --------
    >>> import numpy as np
    >>> real_inner({"x": np.array([1.0, 2.0])}, {"x": np.array([3.0, 4.0])})
    11.0
    >>> real_inner(np.array([1j]), np.array([1j]))
    1.0
    """
    total = 0.0
    for x, y in zip(_leaves(a), _leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            total += float(np.real(np.vdot(x.astype(np.complex128).ravel(),
                                           y.astype(np.complex128).ravel())))
    return total


def _abs_inner(a: PyTree, b: PyTree) -> float:
    """``sum(|a| * |b|)`` over the inexact leaves: the scale of ``real_inner(a, b)``."""
    total = 0.0
    for x, y in zip(_leaves(a), _leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            total += float(np.sum(np.abs(x.astype(np.complex128)) *
                                  np.abs(y.astype(np.complex128))))
    return total


def _max_abs(x: ArrayLike) -> float:
    x = np.asarray(x)
    if x.size == 0 or x.dtype.kind not in "fc":
        return 0.0
    m = np.max(np.abs(x))
    return float(m) if np.isfinite(m) else 0.0


def _random_like(x: ArrayLike, rng: np.random.Generator) -> Array | None:
    x = np.asarray(x)
    if x.dtype.kind == "c":
        v = rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)
    elif x.dtype.kind == "f":
        v = rng.standard_normal(x.shape)
    else:
        return None
    return np.asarray(v, dtype=x.dtype)


def _perturb(args: PyTree, v: Sequence[Array | None], scale: float) -> PyTree:
    """``args + scale * v`` where ``v`` is a flat list of directions (None: not perturbed)."""
    leaves, tree = tree_flatten(args)
    vl = v
    out = []
    for x, d in zip(leaves, vl):
        if d is None:
            out.append(x)
        else:
            x = np.asarray(x)
            out.append(np.asarray(x.astype(np.result_type(x, np.float64)) + scale * d.astype(
                np.result_type(d, np.float64)), dtype=x.dtype))
    return tree_unflatten(tree, out)


class _CentralDifference:
    """The central difference ``D(eps) = (f(args + eps v) - f(args - eps v)) / 2eps``
    (``.value``, a pytree like ``f``'s output) with, per output leaf, a bound on its
    rounding error (``.noise``: ``_NOISE * finfo.eps * max|f(args +- eps v)| / eps``).

    ``.truncation()`` estimates the truncation error ``c eps^2`` elementwise by
    Richardson's rule, ``|D(2 eps) - D(eps)| = 3 |c| eps^2``: two more evaluations of
    ``f``, made only when a check would otherwise fail (a derivative that is 0 at a
    point where a higher one is not, as ``prod`` at a double zero, has an ``O(eps^2)``
    error that no tolerance relative to the values covers).
    """

    def __init__(self, f: Callable[..., Any], args: Sequence[Any],
                 v: Sequence[Array | None], eps: float) -> None:
        self.f, self.args, self.v, self.eps = f, args, v, eps
        diffs, self.noise, self.tree = self._diff(eps)
        self.value = tree_unflatten(self.tree, diffs)

    def _diff(self, eps: float) -> tuple[list[Array], list[float], Any]:
        plus = self.f(*_perturb(self.args, self.v, eps))
        minus = self.f(*_perturb(self.args, self.v, -eps))
        pl, tree = tree_flatten(plus)
        ml = _leaves(minus)
        diffs: list[Array] = []
        noise: list[float] = []
        for a, b in zip(pl, ml):
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind not in "fc":
                diffs.append(np.zeros(a.shape))
                noise.append(0.0)
                continue
            hi = np.result_type(a, np.float64)
            diffs.append((a.astype(hi) - b.astype(hi)) / (2 * eps))
            noise.append(_NOISE * float(np.finfo(a.dtype).eps) * max(_max_abs(a), _max_abs(b))
                         / eps)
        return diffs, noise, tree

    def truncation(self) -> list[Array]:
        """Per output leaf, the elementwise estimate ``|D(2 eps) - D(eps)|`` (>= the
        truncation error of ``D(eps)`` when its ``eps^2`` term dominates)."""
        wide = self._diff(2 * self.eps)[0]
        return [np.abs(np.asarray(w) - np.asarray(d)) for w, d in zip(wide, _leaves(self.value))]


def numerical_jvp(f: Callable[..., Any], args: Sequence[PyTree],
                  v: Sequence[Array | None], eps: float) -> PyTree:
    """Central difference ``(f(args + eps v) - f(args - eps v)) / (2 eps)``.

    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments.
    args : sequence of PyTree
        The point.
    v : sequence of array or None
        A flat list with one direction per leaf of ``args`` (``None`` for leaves that
        are not perturbed, e.g. integers).
    eps : float
        The step.

    Returns
    -------
    PyTree
        Of ``f``'s output structure; float64 (complex128) leaves for inexact outputs,
        zeros for the others.

    Examples
    --------
    >>> import numpy as np
    >>> d = numerical_jvp(lambda x: x ** 2, (np.array([3.0]),), [np.array([1.0])], 1e-3)
    >>> np.round(d, 6)
    array([6.])
    """
    return _CentralDifference(f, args, v, eps).value


def _leaf_error(g: Array, w: Array, tol: float, trunc: Array | float
                ) -> tuple[float, float]:
    """The largest ``|g - w| - tol - trunc`` (equal non-finite values: no error)."""
    g64, w64 = g.astype(np.complex128), w.astype(np.complex128)
    same = (np.isnan(g64) & np.isnan(w64)) | (g64 == w64)
    err = np.where(same, 0.0, np.abs(g64 - w64))
    excess = err - tol - trunc
    if not np.all(np.isfinite(excess)):
        return np.inf, np.inf
    return float(np.max(excess)), float(np.max(err))


def _assert_close(name: str, got: PyTree, fd: _CentralDifference, atol: float,
                  rtol: float) -> None:
    gl, wl = _leaves(got), _leaves(fd.value)
    if len(gl) != len(wl):
        raise AssertionError(f"{name}: {len(gl)} output leaves, expected {len(wl)}")
    trunc: list[Array] | None = None
    for i, (g, w) in enumerate(zip(gl, wl)):
        g, w = np.asarray(g), np.asarray(w)
        if g.shape != w.shape:
            raise AssertionError(f"{name}: leaf {i} has shape {g.shape}, expected {w.shape}")
        if w.dtype.kind not in "fc" or g.dtype.kind not in "fc" or not g.size:
            continue  # integer outputs: no tangent (float0) to compare
        tol = atol + rtol * _max_abs(w) + fd.noise[i]
        excess, worst = _leaf_error(g, w, tol, 0.0)
        if excess <= 0:
            continue
        if trunc is None:
            trunc = fd.truncation()
        excess, worst = _leaf_error(g, w, tol, trunc[i])
        if not excess <= 0:
            raise AssertionError(
                f"{name}: leaf {i} differs from finite differences (max abs error {worst:.3g}"
                f" > tolerance {tol:.3g} = atol {atol} + rtol {rtol} * max|fd| + rounding "
                f"noise {fd.noise[i]:.3g}, plus the truncation error estimate)\n"
                f" got:  {g}\n want: {w}")


def _tangents(args: PyTree, rng: np.random.Generator) -> list[Array | None]:
    """A flat list of random directions, one per leaf of ``args`` (None: not inexact)."""
    return [_random_like(l, rng) for l in _leaves(args)]


def _jvp_args(args: PyTree, v: Sequence[Array | None]) -> PyTree:
    """The flat directions ``v`` as a pytree of tangents for ftrans.jvp (float0 for
    integer leaves)."""
    leaves, tree = tree_flatten(args)
    out = [np.zeros(np.shape(l), float0) if d is None else d for l, d in zip(leaves, v)]
    return tree_unflatten(tree, out)


_CHECK_PARAMS = """
    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments returning a pytree.
    args : tuple
        The point (pytrees of arrays; integer leaves are not perturbed).
    eps : float
        The finite-difference step.
    atol : float
        Absolute tolerance (a floor for derivatives close to zero).
    rtol : float
        Tolerance relative to the scale of the values (module docstring).
    rng : numpy.random.Generator
        Draws the random directions.
"""


def check_jvp(f: Callable[..., Any], args: tuple[Any, ...], eps: float, atol: float,
              rtol: float, rng: np.random.Generator) -> tuple[Any, ...]:
    """One forward-mode check of ``f`` at ``args`` against central differences.
    {params}
    Returns
    -------
    tuple
        The tangents used: pytrees like ``args``, float0 for integer leaves.

    Raises
    ------
    AssertionError
        If the JVP differs from the central difference beyond the tolerances.

    Examples
    --------
    >>> import numpy as np
    >>> t = check_jvp(np.sin, (np.array([0.5]),), 1e-5, 1e-12, 1e-5,
    ...               np.random.default_rng(0))
    >>> len(t)
    1
    """
    v = _tangents(args, rng)
    tangents = tuple(_jvp_args(args, v))
    _, t_out = jvp(f, tuple(args), tangents)
    _assert_close("JVP", t_out, _CentralDifference(f, args, v, eps), atol, rtol)
    return tangents


check_jvp.__doc__ = (check_jvp.__doc__ or "").format(params=_CHECK_PARAMS)


def check_vjp(f: Callable[..., Any], args: tuple[Any, ...], eps: float, atol: float,
              rtol: float, rng: np.random.Generator) -> PyTree:
    """One reverse-mode dot-product check of ``f`` at ``args``.

    Checks ``Re<u, J v> == Re<vjp(u), v>`` for a random cotangent ``u`` and direction
    ``v``, ``J v`` by central differences.
    {params}
    Returns
    -------
    PyTree
        The cotangent ``u`` used: like ``f``'s output, float0 for integer leaves.

    Raises
    ------
    AssertionError
        If the two sides differ beyond the tolerances.
    """
    out, vjp_fn = vjp(f, *args)
    u = tree_unflatten(tree_flatten(out)[1], [_random_like(o, rng) if _inexact(o) else
                                              np.zeros(np.shape(o), float0)
                                              for o in _leaves(out)])
    ct = vjp_fn(u)
    v = _tangents(args, rng)
    fd = _CentralDifference(f, args, v, eps)
    lhs = real_inner(u, fd.value)
    rhs = real_inner(_leaves(ct), [np.zeros(np.shape(l)) if d is None else d
                                   for l, d in zip(_leaves(args), v)])
    ul = _leaves(u)
    u_l1 = [_abs_inner(x, np.ones(np.shape(x))) for x in ul]
    tol = rtol * _abs_inner(u, fd.value) + sum(s * (atol + n) for s, n in zip(u_l1, fd.noise))
    if not abs(lhs - rhs) <= tol:
        tol += _abs_inner(ul, fd.truncation())
    if not abs(lhs - rhs) <= tol:
        raise AssertionError(
            f"VJP dot-product test failed: Re<u, J v> = {lhs!r} by finite differences but "
            f"Re<vjp(u), v> = {rhs!r} (difference {abs(lhs - rhs):.3g} > tolerance "
            f"{tol:.3g}; atol={atol}, rtol={rtol})")
    return u


check_vjp.__doc__ = (check_vjp.__doc__ or "").format(params=_CHECK_PARAMS)


def check_grads(f: Callable[..., Any], args: Sequence[PyTree], order: int = 2,
                modes: Sequence[str] = ("fwd", "rev"), eps: float | None = None,
                atol: float | None = None, rtol: float | None = None, seed: int = 0) -> None:
    """Check ``f``'s derivatives at ``args`` against central finite differences.

    Forward mode compares the JVP along a random direction with a central difference;
    reverse mode runs the dot-product test ``Re<u, J v> == Re<vjp(u), v>``; order
    ``k > 1`` repeats both on the JVP and VJP functions (see the module docstring for
    the tolerances).

    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments returning a pytree of arrays.
    args : tuple or list
        The point (pytrees of arrays; integer leaves are not perturbed).
    order : int, default 2
        Highest derivative order checked (>= 1).  At order ``k > 1`` the JVP is checked
        as a function of (primals, tangents) and the VJP as a function of (primals,
        cotangent), up to order ``k - 1``.
    modes : sequence of {"fwd", "rev"}, default ("fwd", "rev")
        Which modes to check.
    eps : float, optional
        The finite-difference step; by default 1e-5 for float64, 3e-3 for float32,
        3e-2 for float16 (the lowest precision among inputs and outputs).
    atol : float, optional
        Absolute tolerance, a floor for derivatives close to zero; by default 1e-12,
        1e-6, 1e-3 by precision.
    rtol : float, optional
        Tolerance relative to the scale of the values; by default 1e-5, 3e-2, 1e-1 by
        precision.
    seed : int, default 0
        Seed of the random directions.

    Raises
    ------
    AssertionError
        With the mode, order and the mismatching values when a check fails.
    ValueError
        For an unknown mode or ``order < 1``.
    TypeError
        When ``args`` holds a tracer (call it outside any transform).

    Notes
    -----
    Follows ``jax.test_util.check_grads`` (its arguments, plus ``seed``, and its
    recursion over orders); the reverse-mode check is the dot-product (adjoint) test,
    with the real inner product of PyTorch's complex convention.

    Examples
    --------
    >>> import numpy as np
    >>> import ftrans.numpy as fnp
    >>> from ftrans.testing import check_grads
    >>> check_grads(lambda x: fnp.sum(fnp.sin(x) * x), (np.array([0.5, 1.5]),), order=2)

    A wrong rule is reported:

    >>> import ftrans
    >>> @ftrans.custom_jvp
    ... def bad_sin(x):
    ...     return fnp.sin(x)
    >>> @bad_sin.defjvp
    ... def bad_sin_jvp(primals, tangents):
    ...     return fnp.sin(primals[0]), tangents[0]      # should be cos(x) * t
    >>> check_grads(bad_sin, (np.array([1.0]),), order=1, modes=["fwd"])
    Traceback (most recent call last):
    ...
    AssertionError: [order 1, fwd] JVP: leaf 0 differs from finite differences ...
    """
    if order < 1:
        raise ValueError(f"check_grads: order must be >= 1, got {order}")
    for m in modes:
        if m not in ("fwd", "rev"):
            raise ValueError(f"check_grads: modes must be 'fwd' or 'rev', got {m!r}")
    args = tuple(args)
    for l in _leaves(args):
        if isinstance(l, Tracer):
            raise TypeError("check_grads needs concrete arguments, got a tracer")
    if eps is None or atol is None or rtol is None:
        out = f(*args)
        d_eps, d_atol, d_rtol = _DEFAULTS[_precision([args, out])]
        eps = d_eps if eps is None else eps
        atol = d_atol if atol is None else atol
        rtol = d_rtol if rtol is None else rtol
    rng = np.random.default_rng(seed)
    _check(f, args, order, tuple(modes), eps, atol, rtol, rng, 1)


def _check(f: Callable[..., Any], args: tuple[Any, ...], order: int, modes: tuple[str, ...],
           eps: float, atol: float, rtol: float, rng: np.random.Generator, level: int) -> None:
    n = len(args)
    if "fwd" in modes:
        try:
            t = check_jvp(f, args, eps, atol, rtol, rng)
        except AssertionError as e:
            raise AssertionError(f"[order {level}, fwd] {e}") from None
        if order > 1:
            def f_jvp(*a: Any) -> Any:
                return jvp(f, a[:n], a[n:])[1]
            _check(f_jvp, args + t, order - 1, modes, eps, atol, rtol, rng, level + 1)
    if "rev" in modes:
        try:
            u = check_vjp(f, args, eps, atol, rtol, rng)
        except AssertionError as e:
            raise AssertionError(f"[order {level}, rev] {e}") from None
        if order > 1:
            def f_vjp(*a: Any) -> Any:
                return vjp(f, *a[:n])[1](a[n])
            _check(f_vjp, args + (u,), order - 1, modes, eps, atol, rtol, rng, level + 1)
