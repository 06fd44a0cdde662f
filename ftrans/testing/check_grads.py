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

import numpy as np

from ..core import Tracer, float0
from ..core.pytree import tree_flatten, tree_unflatten
from ..transforms import jvp, vjp

__all__ = ["check_grads", "check_jvp", "check_vjp", "numerical_jvp", "real_inner"]

_DEFAULTS = {  # lowest precision -> (eps, atol, rtol)
    np.dtype(np.float64): (1e-5, 1e-12, 1e-5),
    np.dtype(np.float32): (3e-3, 1e-6, 3e-2),
    np.dtype(np.float16): (3e-2, 1e-3, 1e-1),
}
_NOISE = 16.0  # rounding error of f, in units of finfo.eps * |f|


def _leaves(tree):
    return tree_flatten(tree)[0]


def _inexact(x):
    return np.asarray(x).dtype.kind in "fc"


def _precision(trees):
    worst = np.dtype(np.float64)
    for t in trees:
        for l in _leaves(t):
            d = np.asarray(l).dtype
            if d.kind in "fc":
                r = np.finfo(d).dtype
                if r.itemsize < worst.itemsize:
                    worst = r
    return worst


def real_inner(a, b) -> float:
    """``Re(sum(conj(a) * b))`` summed over the leaves of two pytrees of arrays."""
    total = 0.0
    for x, y in zip(_leaves(a), _leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            total += float(np.real(np.vdot(x.astype(np.complex128).ravel(),
                                           y.astype(np.complex128).ravel())))
    return total


def _abs_inner(a, b) -> float:
    """``sum(|a| * |b|)`` over the inexact leaves: the scale of ``real_inner(a, b)``."""
    total = 0.0
    for x, y in zip(_leaves(a), _leaves(b)):
        x, y = np.asarray(x), np.asarray(y)
        if x.dtype.kind in "fc" and y.dtype.kind in "fc":
            total += float(np.sum(np.abs(x.astype(np.complex128)) *
                                  np.abs(y.astype(np.complex128))))
    return total


def _max_abs(x) -> float:
    x = np.asarray(x)
    if x.size == 0 or x.dtype.kind not in "fc":
        return 0.0
    m = np.max(np.abs(x))
    return float(m) if np.isfinite(m) else 0.0


def _random_like(x, rng):
    x = np.asarray(x)
    if x.dtype.kind == "c":
        v = rng.standard_normal(x.shape) + 1j * rng.standard_normal(x.shape)
    elif x.dtype.kind == "f":
        v = rng.standard_normal(x.shape)
    else:
        return None
    return np.asarray(v, dtype=x.dtype)


def _perturb(args, v, scale):
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

    def __init__(self, f, args, v, eps):
        self.f, self.args, self.v, self.eps = f, args, v, eps
        diffs, self.noise, self.tree = self._diff(eps)
        self.value = tree_unflatten(self.tree, diffs)

    def _diff(self, eps):
        plus = self.f(*_perturb(self.args, self.v, eps))
        minus = self.f(*_perturb(self.args, self.v, -eps))
        pl, tree = tree_flatten(plus)
        ml = _leaves(minus)
        diffs, noise = [], []
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

    def truncation(self):
        """Per output leaf, the elementwise estimate ``|D(2 eps) - D(eps)|`` (>= the
        truncation error of ``D(eps)`` when its ``eps^2`` term dominates)."""
        wide = self._diff(2 * self.eps)[0]
        return [np.abs(np.asarray(w) - np.asarray(d)) for w, d in zip(wide, _leaves(self.value))]


def numerical_jvp(f, args, v, eps):
    """Central difference ``(f(args + eps v) - f(args - eps v)) / (2 eps)``.

    ``v`` is a flat list with one direction per leaf of ``args`` (None for leaves that
    are not perturbed, e.g. integers).
    """
    return _CentralDifference(f, args, v, eps).value


def _leaf_error(g, w, tol, trunc):
    """The largest ``|g - w| - tol - trunc`` (equal non-finite values: no error)."""
    g64, w64 = g.astype(np.complex128), w.astype(np.complex128)
    same = (np.isnan(g64) & np.isnan(w64)) | (g64 == w64)
    err = np.where(same, 0.0, np.abs(g64 - w64))
    excess = err - tol - trunc
    if not np.all(np.isfinite(excess)):
        return np.inf, np.inf
    return float(np.max(excess)), float(np.max(err))


def _assert_close(name, got, fd, atol, rtol):
    gl, wl = _leaves(got), _leaves(fd.value)
    if len(gl) != len(wl):
        raise AssertionError(f"{name}: {len(gl)} output leaves, expected {len(wl)}")
    trunc = None
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


def _tangents(args, rng):
    """A flat list of random directions, one per leaf of ``args`` (None: not inexact)."""
    return [_random_like(l, rng) for l in _leaves(args)]


def _jvp_args(args, v):
    """The flat directions ``v`` as a pytree of tangents for ftrans.jvp (float0 for
    integer leaves)."""
    leaves, tree = tree_flatten(args)
    out = [np.zeros(np.shape(l), float0) if d is None else d for l, d in zip(leaves, v)]
    return tree_unflatten(tree, out)


def check_jvp(f, args, eps, atol, rtol, rng):
    """One forward-mode check at ``args``; returns the tangents used (a tuple of pytrees
    like ``args``, float0 for integer leaves)."""
    v = _tangents(args, rng)
    tangents = tuple(_jvp_args(args, v))
    _, t_out = jvp(f, tuple(args), tangents)
    _assert_close("JVP", t_out, _CentralDifference(f, args, v, eps), atol, rtol)
    return tangents


def check_vjp(f, args, eps, atol, rtol, rng):
    """One reverse-mode dot-product check at ``args``; returns the cotangent used (a
    pytree like ``f``'s output, float0 for integer leaves)."""
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


def check_grads(f, args, order=2, modes=("fwd", "rev"), eps=None, atol=None, rtol=None,
                seed=0):
    """Check ``f``'s derivatives at ``args`` against central finite differences.

    Parameters
    ----------
    f : callable
        Function of ``len(args)`` positional pytree arguments returning a pytree of arrays.
    args : tuple or list
        The point (pytrees of arrays; integer leaves are not perturbed).
    order : int
        Highest derivative order checked (>= 1).  At order ``k > 1`` the JVP is checked
        as a function of (primals, tangents) and the VJP as a function of (primals,
        cotangent), up to order ``k - 1``.
    modes : sequence of {"fwd", "rev"}
    eps, atol, rtol : float, optional
        Step and tolerances; default by the lowest precision involved (module
        docstring).  Tolerances are relative to the scale of the values; ``atol`` is
        an absolute floor.
    seed : int
        Seed of the random directions.

    Raises
    ------
    AssertionError
        With the mode, order and the mismatching values when a check fails.
    ValueError
        For an unknown mode or ``order < 1``.
    TypeError
        When ``args`` holds a tracer (call it outside any transform).
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


def _check(f, args, order, modes, eps, atol, rtol, rng, level):
    n = len(args)
    if "fwd" in modes:
        try:
            t = check_jvp(f, args, eps, atol, rtol, rng)
        except AssertionError as e:
            raise AssertionError(f"[order {level}, fwd] {e}") from None
        if order > 1:
            def f_jvp(*a):
                return jvp(f, a[:n], a[n:])[1]
            _check(f_jvp, args + t, order - 1, modes, eps, atol, rtol, rng, level + 1)
    if "rev" in modes:
        try:
            u = check_vjp(f, args, eps, atol, rtol, rng)
        except AssertionError as e:
            raise AssertionError(f"[order {level}, rev] {e}") from None
        if order > 1:
            def f_vjp(*a):
                return vjp(f, *a[:n])[1](a[n])
            _check(f_vjp, args + (u,), order - 1, modes, eps, atol, rtol, rng, level + 1)
