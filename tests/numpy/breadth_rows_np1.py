"""Breadth-table rows for issue 19's searching/set/choosing/index-trick functions
(ftrans/numpy/_search.py, _sets.py, _select.py, _index_tricks.py, _construct.py).

Appended to ``breadth_table.ROWS`` by that module (section "h-np1").  Every row is a
differentiable use: the values of ``unique``/set operations (inputs without ties, well
separated, so that finite differences do not change which elements are picked), the
weights of ``bincount``/``histogram*``, the array pieces of ``choose``/``select``/
``piecewise``/``insert``/``put``/``place``/``putmask``/``fill_diagonal``/``copyto``
(functional ``inplace=False`` forms; the references copy and call NumPy's in-place
function), ``r_``/``c_``/``block``.  Integer outputs and edge cases are in
``test_np1_edges.py``.
"""
import numpy as np

from breadth_table import Row, DOMAINS, _fnp


def _jax():
    import jax.numpy as jnp
    return jnp


def _gen(*specs):
    """Arguments from ``(shape, domain)`` specs or fixed arrays (held fixed)."""
    def args(rng, dt):
        return tuple(DOMAINS[s[1]](rng, s[0], dt) if isinstance(s, tuple) else np.asarray(s)
                     for s in specs)
    return args


def _inplace_ref(name):
    """NumPy's in-place ``name`` applied to a copy of the first argument."""
    def ref(a, *rest, **kw):
        a = a.copy()
        getattr(np, name)(a, *rest, **kw)
        return a
    return ref


def _disjoint(rng, dt):
    """Two 1-d arrays of well separated values with no common element."""
    v = (rng.permutation(9) - 4.0) * 0.7
    a = np.asarray(v[:5], dt)
    return a, np.asarray(v[5:], dt)


_B = np.array([[0, 1, 1], [1, 0, 1]], bool)
_IDX = np.array([[0, 2, 1], [1, 1, 0]])

ROWS_NP1 = [
    # sets: values gathered from the inputs
    Row("unique", args=[((2, 4), "distinct")], batch=False,
        jax_fn=lambda x: _jax().unique(x, size=8),
        note="data-dependent shape: no vmap; JAX differentiates unique only with size="),
    Row("unique", fn=lambda x: _fnp().unique(x, size=5),
        ref=lambda x: np.unique(x)[:5], args=[((8,), "distinct")],
        jax_fn=lambda x: _jax().unique(x, size=5), note="size= (traced path under vmap)"),
    Row("unique_values", args=[((7,), "distinct")], batch=False,
        jax_fn=lambda x: _jax().unique_values(x, size=7)),
    Row("unique_all", fn=lambda x: _fnp().unique_all(x).values,
        ref=lambda x: np.unique_all(x).values, args=[((2, 3), "distinct")], batch=False),
    Row("union1d", args=_disjoint, batch=False,
        jax_fn=lambda a, b: _jax().union1d(a, b, size=9)),
    Row("setdiff1d", args=_disjoint, batch=False,
        jax_fn=lambda a, b: _jax().setdiff1d(a, b, size=5)),
    Row("setxor1d", args=_disjoint, batch=False,
        jax_fn=lambda a, b: _jax().setxor1d(a, b, size=9)),
    # counting: weights differentiable
    Row("bincount", fn=lambda w, x: _fnp().bincount(x, w, minlength=6),
        ref=lambda w, x: np.bincount(x, w, minlength=6),
        args=_gen(((7,), "real"), [0, 3, 1, 3, 3, 4, 0]),
        jax_fn=lambda w, x: _jax().bincount(x, w, minlength=6)),
    Row("histogram", fn=lambda w, a: _fnp().histogram(a, 4, weights=w)[0],
        ref=lambda w, a: np.histogram(a, 4, weights=w)[0],
        args=_gen(((6,), "real"), [0.1, 2.2, 0.7, 0.75, 3.9, 1.3]), diff=(0,),
        jax_fn=lambda w, a: _jax().histogram(a, 4, weights=w)[0]),
    Row("histogram", fn=lambda w, a: _fnp().histogram(a, [0., 1., 2.5, 4.], density=True,
                                                      weights=w)[0],
        ref=lambda w, a: np.histogram(a, [0., 1., 2.5, 4.], density=True, weights=w)[0],
        args=_gen(((6,), "pos"), [0.1, 2.2, 0.7, 0.75, 3.9, 1.3]), diff=(0,),
        note="density: weights normalized"),
    Row("histogram_bin_edges", fn=lambda a: _fnp().histogram_bin_edges(a, 4),
        ref=lambda a: np.histogram_bin_edges(a, 4), args=[((7,), "distinct")],
        jax_fn=lambda a: _jax().histogram_bin_edges(a, 4),
        note="edges from min/max: differentiable in the extreme samples"),
    Row("histogram2d", fn=lambda w, x, y: _fnp().histogram2d(x, y, bins=(2, 3), weights=w)[0],
        ref=lambda w, x, y: np.histogram2d(x, y, bins=(2, 3), weights=w)[0],
        args=_gen(((5,), "real"), [0.1, 0.5, 0.9, 0.3, 0.2], [1.0, 2.0, 2.5, 1.5, 3.0]), diff=(0,),
        jax_fn=lambda w, x, y: _jax().histogram2d(x, y, bins=(2, 3), weights=w)[0]),
    Row("histogramdd", fn=lambda w, s: _fnp().histogramdd(s, bins=2, weights=w)[0],
        ref=lambda w, s: np.histogramdd(s, bins=2, weights=w)[0],
        args=_gen(((4,), "real"), [[0., 1., 2.], [1., 0., 2.], [2., 2., 0.], [0.5, 1.5, 1.]]), diff=(0,)),
    # choosing
    Row("choose", fn=lambda c0, c1, a: _fnp().choose(a, [c0, c1]),
        ref=lambda c0, c1, a: np.choose(a, [c0, c1]),
        args=_gen(((2, 3), "real"), ((3,), "real"), [[0, 1, 1], [1, 0, 0]]), complex=True,
        jax_fn=lambda c0, c1, a: _jax().choose(a, [c0, c1])),
    Row("select", fn=lambda x, y, c1, c2: _fnp().select([c1, c2], [x, y], default=-1.0),
        ref=lambda x, y, c1, c2: np.select([c1, c2], [x, y], default=-1.0),
        args=_gen(((2, 3), "real"), ((3,), "real"), _B, ~_B), complex=True,
        jax_fn=lambda x, y, c1, c2: _jax().select([c1, c2], [x, y], default=-1.0)),
    Row("piecewise",
        fn=lambda x: _fnp().piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, _fnp().sin]),
        ref=lambda x: np.piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2, np.sin]),
        args=[((2, 3), "away")],
        jax_fn=lambda x: _jax().piecewise(x, [x < 0, x >= 0], [lambda v: v ** 2,
                                                               _jax().sin])),
    # placing (functional forms)
    Row("insert", fn=lambda a, v: _fnp().insert(a, [1, 3], v, axis=1),
        ref=lambda a, v: np.insert(a, [1, 3], v, axis=1),
        args=[((2, 3), "real"), ((2, 1), "real")], complex=True,
        jax_fn=lambda a, v: _jax().insert(a, _jax().array([1, 3]), v, axis=1)),
    Row("put", fn=lambda a, v: _fnp().put(a, [0, 4, -1], v, inplace=False),
        ref=lambda a, v: _inplace_ref("put")(a, [0, 4, -1], v),
        args=[((2, 3), "real"), ((2,), "real")], complex=True,
        jax_fn=lambda a, v: _jax().put(a, _jax().array([0, 4, 5]), _jax().resize(v, 3),
                                       inplace=False),
        note="v repeated cyclically"),
    Row("place", fn=lambda a, v, m: _fnp().place(a, m, v, inplace=False),
        ref=lambda a, v, m: _inplace_ref("place")(a, m, v),
        args=_gen(((2, 3), "real"), ((2,), "real"), _B),
        jax_fn=lambda a, v, m: _jax().place(a, m, v, inplace=False)),
    Row("putmask", fn=lambda a, v, m: _fnp().putmask(a, m, v, inplace=False),
        ref=lambda a, v, m: _inplace_ref("putmask")(a, m, v),
        args=_gen(((2, 3), "real"), ((4,), "real"), _B)),
    Row("fill_diagonal", fn=lambda a, v: _fnp().fill_diagonal(a, v, wrap=True, inplace=False),
        ref=lambda a, v: _inplace_ref("fill_diagonal")(a, v, wrap=True),
        args=[((5, 2), "real"), ((2,), "real")], complex=True),
    Row("fill_diagonal", fn=lambda a, v: _fnp().fill_diagonal(a, v, inplace=False),
        ref=lambda a, v: _inplace_ref("fill_diagonal")(a, v), args=[((3, 3), "real"), ((2,), "real")],
        jax_fn=lambda a, v: _jax().fill_diagonal(a, v, inplace=False)),
    Row("copyto", fn=lambda d, s, m: _fnp().copyto(d, s, where=m, inplace=False),
        ref=lambda d, s, m: _inplace_ref("copyto")(d, s, where=m),
        args=_gen(((2, 3), "real"), ((3,), "real"), _B)),
    # rearranging
    Row("resize", fn=lambda a: _fnp().resize(a, (3, 4)), ref=lambda a: np.resize(a, (3, 4)),
        args=[((2, 3), "real")], jax_fn=lambda a: _jax().resize(a, (3, 4))),
    Row("rollaxis", fn=lambda a: _fnp().rollaxis(a, 2, 0), ref=lambda a: np.rollaxis(a, 2, 0),
        args=[((2, 3, 2), "real")], jax_fn=lambda a: _jax().rollaxis(a, 2, 0)),
    Row("block", fn=lambda a, b: _fnp().block([[a, b], [b, a]]),
        ref=lambda a, b: np.block([[a, b], [b, a]]), args=[((2, 2), "real"), ((2, 2), "real")],
        jax_fn=lambda a, b: _jax().block([[a, b], [b, a]])),
    Row("r_", fn=lambda x, y: _fnp().r_[x, 0:2, -1.5, y], ref=lambda x, y: np.r_[x, 0:2, -1.5, y],
        args=[((3,), "real"), ((2,), "real")], complex=True,
        jax_fn=lambda x, y: _jax().r_[x, 0:2, -1.5, y]),
    Row("c_", fn=lambda x, y: _fnp().c_[x, y, x], ref=lambda x, y: np.c_[x, y, x],
        args=[((3,), "real"), ((3,), "real")], jax_fn=lambda x, y: _jax().c_[x, y, x]),
    Row("r_", fn=lambda x, y: _fnp().r_["0,2,0", x, y], ref=lambda x, y: np.r_["0,2,0", x, y],
        args=[((3,), "real"), ((3,), "real")], note="string directive axis,ndmin,trans1d"),
    Row("fromfunction", fn=lambda s: _fnp().fromfunction(lambda i, j: s * i - j * s ** 2, (2, 3)),
        ref=lambda s: np.fromfunction(lambda i, j: s * i - j * s ** 2, (2, 3)),
        args=[((), "real")]),
    Row("copy", args=[((2, 3), "real")], complex=True),
    Row("real_if_close", fn=lambda z: _fnp().real_if_close(z * (1 + 0j)),
        ref=lambda z: np.real_if_close(z * (1 + 0j)), args=[((3,), "real")], batch=False,
        check_dtype=False, note="imaginary part 0: real(z)"),
]
