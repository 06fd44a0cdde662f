"""Conformance of the kernel seam: the primitive table on Dask, array_api_strict and
CuPy arrays.

For every row of ``tests/primitives/prim_cases.py`` (float64; complex128 too where the
row is complex) and every array library:

* the value has the input's array type and equals the NumPy value (float64
  rounding, or the table's float32 tolerance);
* for differentiable rows, ``ftrans.vjp`` with a random cotangent and ``ftrans.jvp``
  with a random tangent (both built in the same library) equal the NumPy ones -- the
  NumPy derivatives are themselves checked against finite differences by
  ``tests/primitives/test_primitives.py``;
* Dask results are lazy: no graph is computed before the test asks.

Primitives outside a library's namespace are listed in :data:`OUTSIDE` with the error
they raise: a ``NotImplementedError``/``TypeError`` whose message names the primitive
and the array type (checked here).  A listed primitive that starts to work fails the
test, so the table stays true.
"""
import os
import sys

import numpy as np
import pytest

import ftrans
from ftrans.primitives import optable
from ftrans.primitives.special_scipy import SCIPY_SPECIAL_PRIMITIVES

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "primitives"))
from prim_cases import CASES  # noqa: E402
from prim_helpers import assert_values, rand_like  # noqa: E402


# ---------------------------------------------------------------------------------
# the array libraries
# ---------------------------------------------------------------------------------
def _dask():
    da = pytest.importorskip("dask.array")

    def to(a):
        a = np.asarray(a)
        if a.ndim == 0:
            return da.from_array(a)
        return da.from_array(a, chunks=(max(1, (a.shape[0] + 1) // 2),) + a.shape[1:])

    def back(x):
        return x.compute() if isinstance(x, da.Array) else np.asarray(x)
    return da.Array, to, back


def _strict():
    xs = pytest.importorskip("array_api_strict")

    def to(a):
        return xs.asarray(np.asarray(a))

    atype = type(xs.asarray(0.0))

    def back(x):
        return np.from_dlpack(x) if isinstance(x, atype) else np.asarray(x)
    return atype, to, back


def _cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed (GPU-only suite)")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("no CUDA device")
    except Exception as e:  # noqa: BLE001
        pytest.skip(f"no usable CUDA device: {e}")
    return cp.ndarray, cp.asarray, cp.asnumpy


def _torch():
    torch = pytest.importorskip("torch")
    pytest.importorskip("array_api_compat")  # PyTorch's namespace comes from it

    def to(a):
        return torch.from_numpy(np.array(a))

    def back(x):
        return x.numpy() if isinstance(x, torch.Tensor) else np.asarray(x)
    return torch.Tensor, to, back


LIBS = {"dask": _dask, "array_api_strict": _strict, "torch": _torch, "cupy": _cupy}

TYPE_NAMES = {"dask": "dask.array.Array", "array_api_strict": "array_api_strict.Array",
              "torch": "torch.Tensor", "cupy": "cupy.ndarray"}

# rows whose test function builds NumPy constants (not the primitive's doing): their
# primitives are tested on these libraries by the dedicated tests below
_NOT_PORTABLE = {"eigh", "svd", "convert_element_type[swap_precision]", "pure_callback",
                 "riemann_zeta"}
NOT_PORTABLE = {"array_api_strict": _NOT_PORTABLE, "torch": _NOT_PORTABLE,
                "cupy": _NOT_PORTABLE}  # (CuPy: tests/compiler's GPU rows run them staged)

# primitive -> error type, per library: what happens outside the library's namespace
# (the message names the primitive and the array type).  Dask: every primitive has a
# lazy implementation (convolution and window pooling as one task on the whole operands).  array_api_strict: the standard has no special functions.
_DASK_OUTSIDE = {  # (dask.array has no gcd, lcm, bitwise_count)
    "integer_elementwise[gcd]": NotImplementedError, "integer_elementwise[lcm]": NotImplementedError,
    "integer_elementwise[bitwise_count]": NotImplementedError}
# (PyTorch through array_api_compat: the same as array_api_strict)
_STRICT_OUTSIDE = _TORCH_OUTSIDE = {name: NotImplementedError for name in (
    "erf", "erfc", "erfinv", "gammaln", "digamma", "polygamma",
    # the standard indexes with one integer array among full slices at most
    "gather[bool0]", "scatter_add[pairs]", "scatter_add[pairs_trailing]",
    # the standard sorts real numbers only
    "argsort[ties_axis0]-complex128",
    # kernels written with NumPy stride tricks and in-place writes (on Dask: one task)
    "conv_general_dilated", "conv_patches", "conv_patches_transpose", "reduce_window_sum",
    "reduce_window_max", "reduce_window_argmax",
    # SciPy's kernels (lfilter, solve_sylvester, expm/logm/sqrtm, lu_factor, and the
    # scipy.special functions of ftrans/primitives/special_scipy.py)
    "iir_filter", "sylvester", "matfun", "lu", *SCIPY_SPECIAL_PRIMITIVES,
    # the standard has no general eig, gcd, lcm or bitwise_count
    "eig", "integer_elementwise[gcd]", "integer_elementwise[lcm]",
    "integer_elementwise[bitwise_count]",
    # the operation table's rows whose function the standard does not have
    *(op.name for op in optable.ROWS if op.array_api is None))}
_TORCH_OUTSIDE = {k: v for k, v in _TORCH_OUTSIDE.items()  # (torch has gcd and lcm)
                  if k not in ("integer_elementwise[gcd]", "integer_elementwise[lcm]")}
# CuPy: the scipy.special functions cupyx.scipy.special does not have (CuPy 14), or has
# for real arguments only
_CUPY_OUTSIDE = {name: NotImplementedError for name in (
    "jv", "yv", "iv", "ive", "kv", "kve", "erf-complex128", "erfc-complex128")}
OUTSIDE = {"dask": _DASK_OUTSIDE, "array_api_strict": _STRICT_OUTSIDE,
           "torch": _TORCH_OUTSIDE, "cupy": _CUPY_OUTSIDE}


@pytest.fixture(autouse=True)
def _local_dask_scheduler():
    """Dask graphs here run on the synchronous scheduler, even when a test module
    elsewhere left a distributed client as the default."""
    try:
        import dask.config  # (without Dask, ``import dask`` can find tests/dask/)
    except ImportError:
        yield
        return
    with dask.config.set(scheduler="sync"):
        yield


def _params():
    out = []
    for lib in LIBS:
        for c in CASES:
            dts = [np.dtype("float64")] + ([np.dtype("complex128")] if c.complex else [])
            if c.dtypes is not None:
                dts = [d for d in c.test_dtypes() if d.name in ("float64", "complex128")] \
                    or [c.test_dtypes()[0]]
            for d in dts:
                out.append(pytest.param(lib, c, d, id=f"{lib}-{c.id}-{d.name}"))
    return out


def _rng(case, dtype):
    return np.random.default_rng(4321 + sum(map(ord, case.id + dtype.name)))


def _tree_map(f, t):
    leaves, td = ftrans.tree_util.tree_flatten(t)
    return ftrans.tree_util.tree_unflatten(td, [f(x) for x in leaves])


@pytest.mark.parametrize("lib,case,dtype", _params())
def test_primitive_on_array_library(lib, case, dtype):
    atype, to, back = LIBS[lib]()
    if {case.name, case.id} & NOT_PORTABLE.get(lib, set()):
        pytest.skip(f"the table's row for {case.id} computes with NumPy constants or "
                    "dtypes around the primitive; see test_strict_rows_not_portable")
    args = case.make_args(_rng(case, dtype), dtype)
    with np.errstate(all="ignore"):
        ref = case.fn(*[np.array(a) for a in args])
    targs = [to(a) for a in args]
    table = OUTSIDE[lib]
    outside = table.get(f"{case.id}-{dtype.name}", table.get(case.id, table.get(case.name)))
    if outside is not None:
        with pytest.raises(outside) as info:
            out = case.fn(*targs)
            _tree_map(back, out)
        msg = str(info.value)
        assert f"primitive {case.name!r}" in msg and TYPE_NAMES[lib] in msg, msg
        return
    with np.errstate(all="ignore"):
        out = case.fn(*targs)
        for leaf in ftrans.tree_util.tree_flatten(out)[0]:
            if getattr(leaf, "ndim", 0) or not isinstance(leaf, (np.ndarray, np.generic)):
                assert isinstance(leaf, atype), f"{type(leaf).__name__} result from {lib} input"
        _assert_tree(_tree_map(back, out), ref, dtype)
    if not case.differentiable or not case.fd:
        return
    diff = [i for i, a in enumerate(args) if np.asarray(a).dtype.kind in "fc"]
    if not diff:
        return
    rng = _rng(case, dtype)

    def restrict(xs, full):
        def g(*d):
            a = list(full)
            for i, v in zip(diff, d):
                a[i] = v
            return case.fn(*a)
        return g

    np_args = [np.array(a) for a in args]
    out_np, vjp_np = ftrans.vjp(restrict(diff, np_args), *[np_args[i] for i in diff])
    ct = _tree_map(lambda o: rand_like(o, rng) if np.asarray(o).dtype.kind in "fc"
                   else np.zeros(np.shape(o), np.asarray(o).dtype), out_np)
    tans = [rand_like(np_args[i], rng) for i in diff]
    with np.errstate(all="ignore"):
        _, vjp_t = ftrans.vjp(restrict(diff, targs), *[targs[i] for i in diff])
        g_t = vjp_t(_tree_map(to, ct))
        _assert_tree(_tree_map(back, g_t), vjp_np(ct), dtype)
        _, jt = ftrans.jvp(restrict(diff, targs), tuple(targs[i] for i in diff),
                           tuple(to(t) for t in tans))
        _, jn = ftrans.jvp(restrict(diff, np_args), tuple(np_args[i] for i in diff),
                           tuple(tans))
        _assert_tree(_tree_map(back, jt), jn, dtype)


def _assert_tree(out, ref, dtype):
    lo, td = ftrans.tree_util.tree_flatten(out)
    lr, tr = ftrans.tree_util.tree_flatten(ref)
    assert len(lo) == len(lr)
    for o, r in zip(lo, lr):
        assert_values(o, r, dtype)


def test_mixing_array_types_is_a_type_error_naming_both():
    xs = pytest.importorskip("array_api_strict")
    da = pytest.importorskip("dask.array")
    import ftrans.numpy as fnp
    a = xs.asarray(np.ones(3))
    with pytest.raises(TypeError, match=r"'add'.*numpy\.ndarray.*array_api_strict\.Array"
                                        r".*asarray"):
        fnp.add(np.ones(3), a)
    with pytest.raises(TypeError, match=r"dask\.array\.Array.*array_api_strict\.Array"):
        fnp.multiply(da.ones(3), a)


def test_numpy_scalars_and_dask_combine_as_dask_does():
    da = pytest.importorskip("dask.array")
    import ftrans.numpy as fnp
    x = da.ones(4, chunks=2)
    out = fnp.add(x, np.arange(4.0))
    assert isinstance(out, da.Array)
    np.testing.assert_array_equal(out.compute(), 1 + np.arange(4.0))


def test_strict_rows_not_portable():
    """eigh, svd and convert_element_type on array_api_strict (their table rows add
    NumPy constants): values against NumPy, and gauge-invariant gradients against the
    NumPy ones."""
    xs = pytest.importorskip("array_api_strict")
    import ftrans.numpy as fnp
    rng = np.random.default_rng(7)
    a = rng.standard_normal((4, 4))
    a = a + a.T
    b = rng.standard_normal((5, 3))
    wn, vn = np.linalg.eigh(a)
    w, v = fnp.linalg.eigh(xs.asarray(a))
    np.testing.assert_allclose(np.from_dlpack(w), wn, rtol=1e-12)
    np.testing.assert_allclose(np.abs(np.from_dlpack(v)), np.abs(vn), rtol=1e-10, atol=1e-12)
    s = fnp.linalg.svd(xs.asarray(b), compute_uv=False)
    np.testing.assert_allclose(np.from_dlpack(s), np.linalg.svd(b, compute_uv=False),
                               rtol=1e-12)
    for f, arg in ((lambda m: fnp.sum(fnp.linalg.eigh(m)[0] ** 3), a),
                   (lambda m: fnp.sum(fnp.linalg.svd(m, compute_uv=False) ** 3), b),
                   (lambda m: fnp.sum(fnp.linalg.svd(m, full_matrices=False)[0] ** 2 *
                                      fnp.linalg.svd(m, full_matrices=False)[1]), b)):
        g = ftrans.grad(f)(xs.asarray(arg))
        assert type(g) is type(xs.asarray(0.0))
        np.testing.assert_allclose(np.from_dlpack(g), ftrans.grad(f)(arg), rtol=1e-10,
                                   atol=1e-12)
    x32 = fnp.astype(xs.asarray(b), np.float32)
    assert x32.dtype == xs.float32
    np.testing.assert_array_equal(np.from_dlpack(x32), b.astype(np.float32))
