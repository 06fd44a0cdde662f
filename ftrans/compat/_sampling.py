"""compat random sampling: ``torch.normal``, ``bernoulli``, ``multinomial``, ``poisson`` and
the in-place samplers of ``Tensor`` (``cauchy_``, ``exponential_``, ``geometric_``,
``log_normal_``, ``random_``, ``bernoulli_``).

Numbers come from compat's :class:`~ftrans.compat.Generator` (a NumPy generator): shapes,
dtypes, argument checks and error types are PyTorch's, the values drawn are not. As in
PyTorch, a sample computed from tensors that require grad is in the graph (``NormalBackward3``,
``BernoulliBackward0``, ``PoissonBackward0`` ...) with a zero derivative: these samplers are
not reparameterized (``torch.distributions``' ``rsample`` is).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from . import _dtype as D
from . import _factories as F
from ._inplace import _inplace
from ._join_ops import clone as _clone
from ._out import write_out
from ._opbase import _broadcast_error, _compose, _tname
from ._tensor import Tensor, _make_plain
from .autograd._composite import composite_class
from .types import DeviceLike, DTypeArg, SizeLike
from .. import primitives as P

__all__ = ["normal", "bernoulli", "multinomial", "poisson"]

_CLASSES: dict = {}


def _node(name: str, n: Any) -> Any:
    key = (name, n)
    if key not in _CLASSES:
        _CLASSES[key] = composite_class(name, ("self", "other", "third")[:n])
    return _CLASSES[key]


def _stopped_sum(*xs: Any) -> Any:
    """The value of a sample (drawn outside) with PyTorch's zero derivative: the
    broadcast sum of the operands behind ``stop_gradient`` (the value itself is ``out``)."""
    r = xs[0]
    for x in xs[1:]:
        r = r + x
    return P.stop_gradient(r)


def _sampled(name: str, tensors: Any, value: Any) -> Any:
    """``value`` (a NumPy array) as the output of a node ``name`` of ``tensors`` (those
    that require grad get a zero gradient, as PyTorch's sampling nodes give)."""
    datas = [t._data for t in tensors]
    return _compose(_node(name, len(tensors)), _stopped_sum, list(tensors), datas, mask=0,
                    out=np.asarray(value))


def _require_float(t: Any, kernel: str) -> None:
    if t.dtype.np.kind not in "fc":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_tname(t.dtype.np)}\'')


def _shape_of(*arrays: Any) -> Any:
    try:
        return np.broadcast_shapes(*[np.shape(a) for a in arrays])
    except ValueError:
        raise _broadcast_error(*arrays[:2]) from None


def normal(mean: Tensor | float = 0.0, std: Tensor | float = 1.0,
           size: SizeLike | None = None, *, generator: F.Generator | None = None,
           out: Tensor | None = None, dtype: DTypeArg = None, layout: Any = None,
           device: DeviceLike = None, pin_memory: bool = False,
           requires_grad: bool = False) -> Tensor:
    """Draws of normal distributions (``torch.normal``).

    Every overload: ``normal(mean_tensor, std_tensor)``, ``normal(mean_tensor, std=1.0)``,
    ``normal(mean, std_tensor)`` and ``normal(mean, std, size, dtype=...)``.  A result
    from tensors is in the graph with a zero derivative (PyTorch's ``NormalBackward1/2/3``).

    Parameters
    ----------
    mean : Tensor or float, optional
        The means (a floating tensor, or a number).
    std : Tensor or float, optional
        The standard deviations (non-negative).
    size : sequence of int, optional
        The shape, required when ``mean`` and ``std`` are numbers (only then).
    generator : Generator, optional
        The random number generator (the default one when omitted).
    out : Tensor, optional
        Tensor the result is written into.
    dtype : dtype, optional
        The dtype of the numbers overload (the default float dtype).
    layout : Any, optional
        Accepted for torch's signature.
    device : device, optional
        The device of the numbers overload.
    pin_memory : bool, optional
        Accepted (no effect).
    requires_grad : bool, optional
        Whether the numbers overload's result requires grad.

    Returns
    -------
    Tensor
        The broadcast shape of ``mean`` and ``std``, or ``size``.

    Raises
    ------
    RuntimeError
        If ``std`` is negative, ``size`` is missing or extra, or a dtype is not floating.
    """
    # (the overloads are told apart by isinstance flags, which mypy does not follow)
    mean_v: Any = mean
    std_v: Any = std
    g = F._gen(generator)
    mt, st = isinstance(mean_v, Tensor), isinstance(std_v, Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments - got "
                            f"({type(mean_v).__name__}, {type(std_v).__name__}), but expected "
                            "one of: (Tensor mean, Tensor std), (Tensor mean, float std), "
                            "(float mean, Tensor std), (float mean, float std, tuple of ints "
                            "size)")
        if std_v < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std_v}")
        npdt = F._fdt(dtype)
        if npdt.kind not in "fc":
            raise NotImplementedError(f'"normal_kernel_cpu" not implemented for '
                                      f"'{_tname(npdt)}'")
        vals = g.normal(float(mean_v), float(std_v), F._size((size,))).astype(npdt)
        return F._finish(vals, requires_grad, device)
    if size is not None:
        raise TypeError("normal(): 'size' is only accepted with a number mean and std")
    ts = [t for t in (mean_v, std_v) if isinstance(t, Tensor)]
    for t in ts:
        _require_float(t, "normal_kernel_cpu")
    if not st and std_v < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std_v}")
    if st and bool(np.any(np.asarray(std_v._data) < 0)):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    npdt = (mean_v if mt else std_v).dtype.np
    if mt and st:
        npdt = D.promote_types(mean_v.dtype.np, std_v.dtype.np)
    m = np.asarray(mean_v._data) if mt else float(mean_v)
    s = np.asarray(std_v._data) if st else float(std_v)
    shape = _shape_of(m, s)
    vals = (m + s * g.standard_normal(shape)).astype(npdt)
    name = "NormalBackward3" if mt and st else ("NormalBackward1" if mt else "NormalBackward2")
    r = _sampled(name, ts, vals)
    return r if out is None else write_out(out, r, "normal")


def _prob_check(p: Any, name: str = "bernoulli_") -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"{name} expects p to be in [0, 1], but got p={p}")


def bernoulli(input: Tensor, p: Tensor | float | None = None, *,  # noqa: A002
              generator: F.Generator | None = None, out: Tensor | None = None) -> Tensor:
    """0/1 draws with the probabilities ``input`` (``torch.bernoulli``).

    Without ``p`` the result is in the graph with a zero derivative
    (``BernoulliBackward0``); given ``p`` it is a tensor of ``input``'s shape and dtype
    with probability ``p``, outside the graph, as PyTorch's.

    Parameters
    ----------
    input : Tensor
        The probabilities in [0, 1] (floating), or the shape and dtype with ``p``.
    p : Tensor or float, optional
        One probability (or a tensor of them) instead of ``input``'s values.
    generator : Generator, optional
        The random number generator (the default one when omitted).
    out : Tensor, optional
        Tensor the result is written into.

    Returns
    -------
    Tensor
        ``input``'s shape and dtype.

    Raises
    ------
    RuntimeError
        If a probability is outside [0, 1] or ``input`` is not floating.
    """
    g = F._gen(generator)
    shape = tuple(input.shape)
    if p is not None:
        if isinstance(p, Tensor):
            return bernoulli_(_clone(input), p, generator=generator)
        _prob_check(p)
        return _make_plain((g.random(shape) < p).astype(input.dtype.np))
    _require_float(input, "bernoulli_tensor_cpu_p_")
    a = np.asarray(input._data)
    if not bool(np.all((a >= 0) & (a <= 1))):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    r = _sampled("BernoulliBackward0", [input], (g.random(shape) < a).astype(a.dtype))
    return r if out is None else write_out(out, r, "bernoulli")


def _fill(self: Any, name: str, vals: Any) -> Any:
    """Write the sample ``vals`` into ``self`` (in place; a node ``name`` with a zero
    derivative when ``self`` is in a graph)."""
    vals = np.asarray(vals).astype(self.dtype.np)
    return _inplace(self, lambda s: _sampled(name, [s], vals))


def bernoulli_(self: Tensor, p: Tensor | float = 0.5, *,
               generator: F.Generator | None = None) -> Tensor:
    """Fill with 0/1 draws of probability ``p`` (``Tensor.bernoulli_``).

    Parameters
    ----------
    p : Tensor or float, optional
        The probability: a number, or a tensor that broadcasts to ``self``.
    generator : Generator, optional
        The random number generator (the default one when omitted).

    Returns
    -------
    Tensor
        ``self``, filled in place.

    Raises
    ------
    RuntimeError
        If a probability is outside [0, 1] or does not broadcast.
    """
    g = F._gen(generator)
    shape = tuple(self.shape)
    if isinstance(p, Tensor):
        pa = np.asarray(p._data)
        try:
            fits = np.broadcast_shapes(pa.shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise RuntimeError(f"The expanded size of the tensor ({shape[-1]}) must match the "
                               f"existing size ({pa.shape[-1]}) at non-singleton dimension "
                               f"{len(shape) - 1}.  Target sizes: {list(shape)}.  Tensor "
                               f"sizes: {list(pa.shape)}")
        if not bool(np.all((pa >= 0) & (pa <= 1))):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        return _fill(self, "BernoulliBackward2", g.random(shape) < pa)
    _prob_check(float(p))
    return _fill(self, "BernoulliBackward1", g.random(shape) < float(p))


def _continuous(self: Any, what: str) -> None:
    if self.dtype.np.kind not in "fc":
        ct = {"Cauchy": "long int"}.get(what, _tname(self.dtype.np))
        raise RuntimeError(f"{what} distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified {ct}")


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *,
            generator: F.Generator | None = None) -> Tensor:
    """Fill with draws of the Cauchy distribution (``Tensor.cauchy_``).

    Parameters
    ----------
    median : float, optional
        The location.
    sigma : float, optional
        The scale (positive).
    generator : Generator, optional
        The random number generator (the default one when omitted).

    Returns
    -------
    Tensor
        ``self``, filled in place.

    Raises
    ------
    RuntimeError
        If ``sigma`` is not positive or ``self`` is not floating.
    """
    _continuous(self, "Cauchy")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    v = median + sigma * F._gen(generator).standard_cauchy(tuple(self.shape))
    return _fill(self, "CauchyBackward0", v)


def exponential_(self: Tensor, lambd: float = 1.0, *,
                 generator: F.Generator | None = None) -> Tensor:
    """Fill with draws of the exponential distribution (``Tensor.exponential_``).

    Parameters
    ----------
    lambd : float, optional
        The rate (positive).
    generator : Generator, optional
        The random number generator (the default one when omitted).

    Returns
    -------
    Tensor
        ``self``, filled in place.

    Raises
    ------
    RuntimeError
        If ``lambd`` is not positive or ``self`` is not floating.
    """
    _continuous(self, "Exponential")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    v = F._gen(generator).exponential(1.0 / lambd, tuple(self.shape))
    return _fill(self, "ExponentialBackward0", v)


def geometric_(self: Tensor, p: float, *, generator: F.Generator | None = None) -> Tensor:
    """Fill with geometric draws (``Tensor.geometric_``).

    The number of Bernoulli(``p``) trials up to the first success (1, 2, ...); integer
    tensors too.

    Parameters
    ----------
    p : float
        The success probability, in (0, 1).
    generator : Generator, optional
        The random number generator (the default one when omitted).

    Returns
    -------
    Tensor
        ``self``, filled in place.

    Raises
    ------
    RuntimeError
        If ``p`` is not in (0, 1).
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return _fill(self, "GeometricBackward0", F._gen(generator).geometric(p, tuple(self.shape)))


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *,
                generator: F.Generator | None = None) -> Tensor:
    """Fill with ``exp`` of normal draws (``Tensor.log_normal_``).

    Parameters
    ----------
    mean : float, optional
        The mean of the underlying normal distribution.
    std : float, optional
        Its standard deviation (positive).
    generator : Generator, optional
        The random number generator (the default one when omitted).

    Returns
    -------
    Tensor
        ``self``, filled in place.

    Raises
    ------
    RuntimeError
        If ``std`` is not positive or ``self`` is not floating.
    """
    _require_float(self, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    v = F._gen(generator).lognormal(mean, std, tuple(self.shape))
    return _fill(self, "LogNormalBackward0", v)


def _int_range(npdt: Any) -> Any:
    if npdt == np.bool_:
        return 0, 1
    if npdt.kind in "iu":
        i = np.iinfo(npdt)
        return int(i.min), int(i.max)
    m = np.finfo(npdt).nmant + 1
    return -(2 ** m), 2 ** m


_CNAMES = {"uint8": "unsigned char", "int8": "signed char", "int16": "short",
           "int32": "int", "int64": "long", "bool": "bool"}


def random_(self: Tensor, from_: int | None = None, to: int | None = None, *,
            generator: F.Generator | None = None, **kwargs: Any) -> Tensor:
    """Fill with uniformly drawn integers (``Tensor.random_``).

    ``random_()`` draws in ``[0, 2**mantissa]`` (a float dtype) or ``[0, max]`` (an
    integer dtype), ``random_(to)`` in ``[0, to)``, ``random_(from, to)`` in
    ``[from, to)``.

    Parameters
    ----------
    from_ : int, optional
        The lower bound (or the upper one when ``to`` is not given).
    to : int, optional
        The exclusive upper bound.
    generator : Generator, optional
        The random number generator (the default one when omitted).
    **kwargs : Any
        ``from=`` (torch's keyword name of ``from_``).

    Returns
    -------
    Tensor
        ``self``, filled in place.

    Raises
    ------
    RuntimeError
        If the range is empty or outside the dtype.
    TypeError
        If an unknown keyword is given.
    """
    from_ = kwargs.pop("from", from_)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    npdt = self.dtype.np
    lo, hi = _int_range(npdt)
    if from_ is not None and to is None:
        from_, to = 0, from_
    g = F._gen(generator)
    if to is None:
        start, stop, name = 0, (hi if npdt.kind not in "f" else hi) + 1, "RandomBackward0"
    else:
        start, stop = int(from_ or 0), int(to)
        name = "RandomBackward2" if from_ else "RandomBackward1"
        if start >= stop:
            raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got "
                               f"from={start} >= to={stop}")
        cname = _CNAMES.get(str(npdt))
        if cname is not None:
            if start < lo:
                raise RuntimeError(f"from is out of bounds for {cname}")
            if stop - 1 > hi:
                raise RuntimeError(f"to - 1 is out of bounds for {cname}")
    shape = tuple(self.shape)
    if stop - start > 2 ** 63 - 1:
        v = np.asarray(g.integers(0, 2 ** 63 - 1, shape, dtype=np.int64))
    else:
        v = g.integers(start, stop, shape, dtype=np.int64)
    return _fill(self, name, v)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: F.Generator | None = None, out: Tensor | None = None) -> Tensor:
    """Category indices drawn from rows of probabilities (``torch.multinomial``).

    Parameters
    ----------
    input : Tensor
        Non-negative (unnormalized) probabilities, 1-d or 2-d, floating.
    num_samples : int
        How many draws per row (at most the number of categories without replacement).
    replacement : bool, optional
        Draw with replacement.
    generator : Generator, optional
        The random number generator (the default one when omitted).
    out : Tensor, optional
        An int64 tensor the result is written into.

    Returns
    -------
    Tensor
        int64, ``input``'s shape with the last dimension ``num_samples``.

    Raises
    ------
    RuntimeError
        If the probabilities or ``num_samples`` are invalid.
    """
    if not isinstance(num_samples, (int, np.integer)) or isinstance(num_samples, bool):
        raise TypeError("multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    if out is not None and out.dtype.np != np.int64:
        raise RuntimeError("multinomial expects Long tensor out, got: "
                           f"{out.dtype._tname}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if input.dtype.np.kind != "f":
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{_tname(input.dtype.np)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    p = np.asarray(input._data, dtype=np.float64)
    k = p.shape[-1]
    if not replacement and num_samples > k:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if k > 2 ** 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = p.reshape(-1, k)
    if not bool(np.all(np.isfinite(rows) & (rows >= 0))):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    sums = rows.sum(axis=-1)
    if rows.shape[0] and bool(np.any(sums <= 0)):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = F._gen(generator)
    res = np.empty((rows.shape[0], num_samples), np.int64)
    for i, row in enumerate(rows):
        q = row / sums[i]
        if replacement:
            res[i] = np.searchsorted(np.cumsum(q), g.random(num_samples) * q.sum(),
                                     side="right").clip(0, k - 1)
        else:   # Gumbel top-k on log q: zero-probability categories come last
            keys = np.where(q > 0, np.log(np.where(q > 0, q, 1.0)) + g.gumbel(size=k), -np.inf)
            res[i] = np.argsort(-keys, kind="stable")[:num_samples]
    r = _make_plain(res.reshape(p.shape[:-1] + (num_samples,)))
    return r if out is None else write_out(out, r, "multinomial")


def poisson(input: Tensor, generator: F.Generator | None = None) -> Tensor:  # noqa: A002
    """Poisson draws of the rates ``input`` (``torch.poisson``).

    In the graph with a zero derivative (``PoissonBackward0``).

    Parameters
    ----------
    input : Tensor
        Non-negative floating rates.
    generator : Generator, optional
        The random number generator (the default one when omitted).

    Returns
    -------
    Tensor
        ``input``'s shape and dtype.

    Raises
    ------
    RuntimeError
        If a rate is negative or ``input`` is not floating.
    """
    _require_float(input, "poisson_cpu")
    lam = np.asarray(input._data)
    if bool(np.any(lam < 0)):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return _sampled("PoissonBackward0", [input], F._gen(generator).poisson(lam).astype(lam.dtype))


METHODS = {"bernoulli": bernoulli, "bernoulli_": bernoulli_, "cauchy_": cauchy_,
           "exponential_": exponential_, "geometric_": geometric_, "log_normal_": log_normal_,
           "random_": random_, "multinomial": multinomial}
