"""The systematic generator over ``breadth_table.ROWS`` (see that module's docstring).

For every row x dtype x kwargs variant:

* ``test_value``: ftrans vs the NumPy/SciPy reference (values, shapes, dtypes);
* ``test_grads``: ``check_grads`` (finite differences) of order ``row.order`` (2 by
  default), forward and reverse mode;
* ``test_vmap``: ``vmap`` over a batch of 3 of the first argument vs a Python loop;
* ``test_jax``: for rows with a ``jax_fn``: values, JVP and VJP vs JAX in x64 (skipped with
  a reason when JAX is not installed; under CI one dtype per row: ``_jax_params``).  ftrans
  follows PyTorch's complex convention, so its VJP of a cotangent ``u`` is
  ``conj(jax_vjp(conj(u)))``.

``test_table_size`` prints the number of distinct public names the table covers
(run with ``-s`` to see it).
"""
import os
import zlib

import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.testing import check_grads
from ftrans.tree_util import tree_flatten, tree_map

from breadth_table import ROWS, resolve_fn, resolve_ref

try:  # JAX is an optional differential reference
    import jax
    jax.config.update("jax_enable_x64", True)
except Exception:  # pragma: no cover - depends on the environment
    jax = None

# value comparison tolerances by dtype: (rtol, atol)
_TOL = {"float64": (1e-9, 1e-11), "complex128": (1e-9, 1e-11),
        "float32": (2e-4, 2e-5), "complex64": (2e-4, 2e-5)}


def _params():
    out = []
    for i, row in enumerate(ROWS):
        for dt in row.all_dtypes():
            for k, kw in enumerate(row.kwargs):
                kws = ",".join(f"{a}={v}" for a, v in kw.items())
                out.append(pytest.param(i, dt, k, id=f"{row.name}#{i}-{dt.name}"
                                        + (f"-{kws}" if kws else "")))
    return out


PARAMS = _params()


def _rng(i, dt, k, salt=""):
    return np.random.default_rng(zlib.crc32(f"{ROWS[i].name}|{i}|{dt}|{k}|{salt}".encode()))


def _leaves(t):
    return tree_flatten(t)[0]


def _is_inexact(a):
    leaves = _leaves(a)
    return bool(leaves) and all(np.asarray(x).dtype.kind in "fc" for x in leaves)


def _diff_positions(row, args):
    if row.diff is not None:
        return tuple(row.diff)
    return tuple(j for j, a in enumerate(args) if _is_inexact(a))


def _assert_close(got, want, dtype, row, check_dtype=True, what="value"):
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w), f"{row.name}: {len(g)} outputs, reference has {len(w)}"
    rtol, atol = (row.tol or {}).get(dtype.name, _TOL.get(dtype.name, (1e-9, 1e-11)))
    for a, b in zip(g, w):
        a, b = np.asarray(a), np.asarray(b)
        assert a.shape == b.shape, f"{row.name} {what}: shape {a.shape} != {b.shape}"
        if check_dtype:
            assert a.dtype == b.dtype, f"{row.name} {what}: dtype {a.dtype} != {b.dtype}"
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=f"{row.name} {what}")


@pytest.mark.parametrize("i,dt,k", PARAMS)
def test_value(i, dt, k):
    row, kw = ROWS[i], ROWS[i].kwargs[k]
    args = row.make_args(_rng(i, dt, k), dt)
    fn, ref = resolve_fn(row), resolve_ref(row)
    got = fn(*args, **kw)
    with np.errstate(all="ignore"):
        want = ref(*args, **kw)
    _assert_close(got, want, dt, row, row.check_dtype)


@pytest.mark.parametrize("i,dt,k", PARAMS)
def test_grads(i, dt, k):
    row, kw = ROWS[i], ROWS[i].kwargs[k]
    if not row.grad:
        pytest.skip(f"{row.name}: no gradient check ({row.note or 'grad=False'})")
    if row.grad_dtypes is not None and dt not in [np.dtype(d) for d in row.grad_dtypes]:
        pytest.skip(f"{row.name}: gradients checked for {row.grad_dtypes} only")
    args = row.make_args(_rng(i, dt, k), dt)
    fn = resolve_fn(row)
    diff = _diff_positions(row, args)
    assert diff, f"{row.name}: no differentiable argument"

    def f(*d):
        full = list(args)
        for j, v in zip(diff, d):
            full[j] = v
        if row.hermitian_input:  # (see Row.hermitian_input)
            full[0] = (full[0] + fnp.conj(fnp.swapaxes(full[0], -1, -2))) * 0.5
        return fn(*full, **kw)
    check_grads(f, tuple(args[j] for j in diff), order=row.order, modes=("fwd", "rev"))


@pytest.mark.parametrize("i,dt,k", PARAMS)
def test_vmap(i, dt, k):
    row, kw = ROWS[i], ROWS[i].kwargs[k]
    if not row.batch:
        pytest.skip(f"{row.name}: no batching check ({row.note or 'batch=False'})")
    rng = _rng(i, dt, k, "vmap")
    samples = [row.make_args(rng, dt) for _ in range(3)]
    rest = samples[0][1:]
    fn = resolve_fn(row)
    firsts = [s[0] for s in samples]
    stacked = tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *firsts)
    got = ftrans.vmap(lambda a0: fn(a0, *rest, **kw))(stacked)
    outs = [fn(a0, *rest, **kw) for a0 in firsts]
    want = tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *outs)
    _assert_close(got, want, dt, row, check_dtype=True, what="vmap")


def _jax_dtypes(row):
    if row.jax_dtypes is not None:
        return [np.dtype(d) for d in row.jax_dtypes]
    return [np.dtype(np.float64), np.dtype(np.complex128)]


def _jax_params():
    """The ``test_jax`` cases: every row with a ``jax_fn`` in each of its JAX dtypes; under
    CI (``CI`` set, ``FTRANS_FULL_SUITE`` not) one dtype per row, alternating
    between the rows (row ``i`` keeps its ``i % n``-th dtype).  The 611 cases took 157 s
    of the CI's 28-minute suite; every row still meets JAX in CI, and its values, finite
    differences and batching are checked in every dtype by the tests above."""
    sample = os.environ.get("CI") and not os.environ.get("FTRANS_FULL_SUITE")

    def keep(i, dt):
        row = ROWS[i]
        dts = [d for d in row.all_dtypes() if d in _jax_dtypes(row)]
        return row.jax_fn is not None and dt in dts and (not sample or dt == dts[i % len(dts)])
    return [p for p in PARAMS if keep(*p.values[:2])]


_JAX_PARAMS = _jax_params()


@pytest.mark.skipif(jax is None, reason="JAX is not installed (differential reference)")
@pytest.mark.parametrize("i,dt,k", _JAX_PARAMS)
def test_jax(i, dt, k):
    row, kw = ROWS[i], ROWS[i].kwargs[k]
    rng = _rng(i, dt, k)
    args = row.make_args(rng, dt)
    fn = resolve_fn(row)
    diff = _diff_positions(row, args)

    def bind(f, to_arr):
        def g(*d):
            full = [to_arr(a) for a in args]
            for j, v in zip(diff, d):
                full[j] = v
            return f(*full, **kw)
        return g

    f_ft = bind(fn, lambda a: a)
    f_jx = bind(row.jax_fn, lambda a: tree_map(jax.numpy.asarray, a))
    primals = tuple(args[j] for j in diff)
    jprimals = tuple(tree_map(jax.numpy.asarray, p) for p in primals)
    # values
    out = f_ft(*primals)
    jout = tree_map(np.asarray, f_jx(*jprimals))
    _assert_close(out, jout, dt, row, check_dtype=False, what="value vs JAX")
    # JVP (convention-free)
    tangents = tuple(tree_map(lambda a: _like(rng, a), p) for p in primals)
    _, t = ftrans.jvp(f_ft, primals, tangents)
    _, jt = jax.jvp(f_jx, jprimals, tuple(tree_map(jax.numpy.asarray, v) for v in tangents))
    _assert_close(t, tree_map(np.asarray, jt), dt, row, check_dtype=False, what="JVP vs JAX")
    # VJP: ftrans (PyTorch convention) = conj(JAX vjp of conj(u))
    u = tree_map(lambda a: _like(rng, a), out)
    _, vjp_ft = ftrans.vjp(f_ft, *primals)
    _, vjp_jx = jax.vjp(f_jx, *jprimals)
    ct = vjp_ft(u)
    # the cotangent in JAX's own output structure (namedtuples such as SlogdetResult
    # are JAX pytree nodes of a different type than ftrans')
    jtree = jax.tree_util.tree_structure(f_jx(*jprimals))
    ju = jax.tree_util.tree_unflatten(jtree, [jax.numpy.asarray(np.conj(a)) for a in _leaves(u)])
    jct = vjp_jx(ju)
    jct = tree_map(lambda a: np.conj(np.asarray(a)), jct)
    _assert_close(ct, jct, dt, row, check_dtype=False, what="VJP vs JAX")


def _like(rng, a):
    a = np.asarray(a)
    v = rng.standard_normal(a.shape)
    if a.dtype.kind == "c":
        v = v + 1j * rng.standard_normal(a.shape)
    return np.asarray(v, a.dtype)


def _public(name):
    """The object the public dotted name denotes in ftrans (raises if it does not exist)."""
    import importlib
    if name.startswith("scipy."):
        mod, _, attr = name.rpartition(".")
        return getattr(importlib.import_module("ftrans." + mod), attr)
    import ftrans.numpy as fnp
    obj = fnp
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


def test_every_name_is_public():
    """Every row's name exists in ftrans' public namespace (so the count is honest)."""
    missing = []
    for row in ROWS:
        try:
            _public(row.name)
        except (AttributeError, ImportError):
            missing.append(row.name)
    assert not missing, f"rows naming functions ftrans does not provide: {missing}"


def test_table_size():
    names = sorted({r.name for r in ROWS})
    print(f"\nbreadth table: {len(names)} distinct public names in {len(ROWS)} rows "
          f"({len(PARAMS)} row x dtype x variant combinations)")
    assert len(names) > 0
