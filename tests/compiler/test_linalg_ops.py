"""Linear algebra compiled without graph breaks (ftrans.compiler._numba_linalg): jit(f) ==
f through the compiled path, float64/float32/complex128, batch axes, and jit(grad(f)) ==
grad(f); the graph-breaking cases (empty matrices, eigh(lower=False)) still give f's values.

Few programs (numba compile time): every primitive in one program per dtype."""
import warnings

import numpy as np
import pytest

import ftrans
from ftrans.core.ir import stage
from ftrans.compiler import compile_ir, graph_breaks
from ftrans.primitives import linalg as L

from _jit_checks import ci_sample

rng = np.random.default_rng(21)
NAMES = {"solve", "cholesky", "triangular_solve", "det", "slogdet", "eigh", "svd", "qr",
         "pinv", "lu"}


def _inputs(dtype, batch):
    def mat(*shape):
        x = rng.standard_normal(batch + shape)
        if np.dtype(dtype).kind == "c":
            x = x + 1j * rng.standard_normal(batch + shape)
        return x.astype(dtype)
    n = 4
    a = mat(n, n) + 3 * np.eye(n, dtype=dtype)
    return a, mat(n, 3), mat(5, 3)


def _prog(a, b, c):
    """Every lowered primitive; one output per result (svd/eigh vectors only through
    sign-free products)."""
    ah = a @ ftrans.numpy.conj(ftrans.numpy.swapaxes(a, -1, -2))
    ch = L.cholesky(ah)
    w, v = L.eigh(ah, lower=True)
    u, s, vh = L.svd(c, full_matrices=False)
    q, r = L.qr(c, complete=False)
    sign, logabs = L.slogdet(a)
    return (L.solve(a, b), ch, L.triangular_solve(ch, b, lower=True),
            L.triangular_solve(a, b, lower=False), L.det(a), sign, logabs, w,
            v @ ftrans.numpy.conj(ftrans.numpy.swapaxes(v, -1, -2)) * 1.0, s,
            (u * ftrans.numpy.expand_dims(s, -2)) @ vh, q @ r,
            # pinv: a wide and a rank-deficient matrix (its third singular value dropped),
            # the Hermitian form
            L.pinv(ftrans.numpy.swapaxes(c, -1, -2)),
            L.pinv(ftrans.numpy.concatenate([c, c[..., :1] * 2.0], axis=-1), rcond=1e-6),
            L.pinv(ah, hermitian=True), *L.lu(c), *L.lu(a))


def _run_compiled(ir, args):
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        return compile_ir(ir)(*args)


def _close(out, ref, dtype):
    rtol = 2e-4 if np.dtype(dtype) in (np.float32, np.complex64) else 1e-10
    for k, (o, r) in enumerate(zip(out, ref)):
        o, r = np.asarray(o), np.asarray(r)
        assert o.shape == r.shape and o.dtype == r.dtype, (k, o.shape, r.shape, o.dtype, r.dtype)
        np.testing.assert_allclose(o, r, rtol=rtol, atol=rtol * 10, err_msg=f"output {k}")


@pytest.mark.parametrize("dtype,batch", ci_sample([(np.float64, (2, 3)), (np.float32, ()),
                                                   (np.complex128, (2,))], 1, 2))
def test_linalg_compiled_equals_eager(dtype, batch):
    args = _inputs(dtype, batch)
    ir, lifted = stage(_prog, args)
    assert not lifted
    assert not NAMES & set(graph_breaks(ir)), graph_breaks(ir)
    _close(_run_compiled(ir, args), _prog(*args), dtype)


def _loss_factor(a, b):
    ah = a @ ftrans.numpy.swapaxes(a, -1, -2)
    ch = L.cholesky(ah)
    sign, logabs = L.slogdet(a)
    x = L.solve(a, b) + L.triangular_solve(ch, b, lower=True)
    return (ftrans.numpy.sum(x ** 2) + ftrans.numpy.sum(L.det(a)) + ftrans.numpy.sum(logabs)
            + ftrans.numpy.sum(L.lu(a)[0] ** 2))


def _loss_spectral(a, b):
    ah = a @ ftrans.numpy.swapaxes(a, -1, -2)
    w, _ = L.eigh(ah, lower=True)
    _, s, _ = L.svd(a, full_matrices=False)
    q, r = L.qr(a, complete=False)
    return (ftrans.numpy.sum(w) + ftrans.numpy.sum(s) + ftrans.numpy.sum((q @ r) * r[..., :1, :1])
            + ftrans.numpy.sum(L.pinv(a) ** 2) + ftrans.numpy.sum(b))


# (two programs: numba's time grows faster than a function's length, and the workers
# compile them side by side)
@pytest.mark.parametrize("loss", [_loss_factor, _loss_spectral], ids=["factor", "spectral"])
@pytest.mark.parametrize("dtype", ci_sample([np.float64, np.float32], 1))
def test_linalg_grad_compiled_equals_eager(dtype, loss):
    a, b, _ = _inputs(dtype, (2,))
    g = ftrans.grad(loss, argnums=(0, 1))
    ir, _ = stage(g, (a, b))
    assert not NAMES & set(graph_breaks(ir)), graph_breaks(ir)
    _close(_run_compiled(ir, (a, b)), g(a, b), dtype)
    _close(ftrans.jit(g)(a, b), g(a, b), dtype)


def test_graph_breaking_cases_keep_values():
    """eigh(lower=False) and empty matrices run their impl (NumPy's conventions)."""
    a = rng.standard_normal((3, 3))
    e = np.zeros((2, 0, 0))

    def f(a, e):
        w, v = L.eigh(a, lower=False)
        return w, L.det(e), L.slogdet(e)[1], L.solve(e, e)
    ir, _ = stage(f, (a, e))
    assert {"eigh", "det", "slogdet", "solve"} <= set(graph_breaks(ir))
    _close(_run_compiled(ir, (a, e)), f(a, e), np.float64)


def test_lu_of_a_singular_matrix_warns_as_scipy():
    """A zero pivot: the compiled call reruns with the impl (SciPy's values and warning)."""
    s = np.array([[1.0, 2.0], [2.0, 4.0]])
    f = ftrans.jit(lambda a: L.lu(a))
    with pytest.warns(Warning, match="exactly zero"):
        got = f(s)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for g, w in zip(got, L.lu(s)):
            np.testing.assert_array_equal(g, w)


def _fft_prog(x):
    fft = ftrans.numpy.fft
    y = fft.fft2(x * 2.0 + 1.0)
    r = fft.rfft(x, axis=0, norm="ortho")
    return (y, fft.ifft(y, axis=-1), r, fft.irfft(r, n=x.shape[0], axis=0, norm="ortho"),
            fft.rfftn(x, norm="forward"))


def _fft_loss(x):
    y = _fft_prog(x)
    return sum(ftrans.numpy.sum(ftrans.numpy.real(v) ** 2 + ftrans.numpy.imag(v) ** 2)
               for v in y)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_fft_compiled_in_one_segment(dtype):
    """fft runs from an objmode block inside the segment: no graph break, eager values."""
    x = rng.standard_normal((2, 5, 6)).astype(dtype)
    for f in (_fft_prog, ftrans.grad(_fft_loss)):
        ir, _ = stage(f, (x,))
        assert "fft" not in graph_breaks(ir), graph_breaks(ir)
        with warnings.catch_warnings():   # (the objmode block's function keeps the GIL)
            warnings.filterwarnings("error", "Code running in object mode")
            out = _run_compiled(ir, (x,))
        ref = f(x)
        _close(out, ref if isinstance(ref, tuple) else (ref,), dtype)


@pytest.mark.parametrize("dtype", ci_sample([np.float64, np.complex64], 0))
def test_eig_compiled_in_one_segment(dtype):
    """eig: NumPy's impl from an objmode block (its eigenvectors' signs and phases are
    NumPy's LAPACK's): no graph break, eager's bits, a conjugate pair of a real matrix,
    values and gradients."""
    a = rng.standard_normal((2, 4, 4))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((2, 4, 4))
    a = a.astype(dtype)
    rot = np.array([[0.0, -1.0], [1.0, 0.0]], dtype)

    def f(a, rot):
        w, v = L.eig(a * 2.0)
        return (w + 1.0, v, *L.eig(rot))

    def loss(a):
        w, _ = L.eig(a)
        return ftrans.numpy.sum(ftrans.numpy.real(w * ftrans.numpy.conj(w)))
    for g, args, rtol in ((f, (a, rot), 0), (ftrans.grad(loss), (a,), 2e-4 if
                                             dtype == np.complex64 else 1e-12)):
        ir, _ = stage(g, args)
        assert "eig" not in graph_breaks(ir), graph_breaks(ir)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", "Code running in object mode")
            out = _run_compiled(ir, args)
        ref = g(*args)
        for o, r in zip(out, ref if isinstance(ref, tuple) else (ref,)):
            # eig's own results are eager's bits; the gradient's products are compiled
            np.testing.assert_allclose(o, r, rtol=rtol, atol=rtol)



def test_nonfinite_input_gives_eagers_result_not_numbas_error():
    """numba's np.linalg refuses infs and nans (LinAlgError) where NumPy's LAPACK returns
    nan: such a call runs the segment's impls, on the first call and on later ones."""
    import warnings
    import ftrans
    import ftrans.numpy as fnp
    bad = np.array([[1.0, np.nan], [0.0, 1.0]])

    def f(a, b):
        return fnp.linalg.solve(a, b) * 2.0, fnp.linalg.det(a) + 1.0
    jf = ftrans.jit(f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "invalid value" only
        for a in (bad, np.eye(2), bad):
            got, want = jf(a, np.ones(2)), f(a, np.ones(2))
            for g, w in zip(got, want):
                np.testing.assert_array_equal(g, w)
    # LAPACK's own refusal stays an error, as in eager
    with pytest.raises(np.linalg.LinAlgError):
        ftrans.jit(fnp.linalg.cholesky)(-np.eye(2))


def test_singular_triangular_solve_raises_as_eager():
    """A zero on the triangle's diagonal: SciPy's LinAlgError under jit too (the compiled
    substitution refuses it, and the call reruns with the impls), not inf or nan."""
    import ftrans.scipy.linalg as fsl
    a = np.triu(np.ones((3, 3)))
    a[1, 1] = 0.0
    f = lambda a, b: fsl.solve_triangular(a, b, lower=False) * 2.0  # noqa: E731
    with pytest.raises(np.linalg.LinAlgError):
        f(a, np.ones((3, 1)))
    with pytest.raises(np.linalg.LinAlgError):
        ftrans.jit(f)(a, np.ones((3, 1)))
    np.testing.assert_array_equal(ftrans.jit(f)(np.eye(3), np.ones((3, 1))), 2.0 * np.ones((3, 1)))


def test_impl_only_primitives_run_from_the_segment():
    """Primitives with only an impl (SciPy's matrix functions, sylvester, polygamma,
    Hurwitz zeta, the incomplete gamma/beta derivatives, lfilter) run from objmode blocks:
    no graph break, eager's bits, and a scan whose body calls one compiles."""
    from ftrans import lax
    from ftrans.primitives import special as S, special_scipy as SS, iir
    from ftrans.primitives._linalg_matfun import matfun, sylvester_p
    from ftrans.primitives._linalg_common import hermitian_part_p
    a = rng.standard_normal((2, 3, 3)) * 0.3
    x = rng.uniform(0.5, 3, (4, 5))
    av = rng.uniform(0.5, 3, (4, 5))

    def f(a, x, av):
        return [matfun(a, "expm"), matfun(a @ np.swapaxes(a, -1, -2) + np.eye(3), "sqrtm"),
                sylvester_p.bind(a, a * 2 + 3 * np.eye(3), a * 0 + 1.0),
                hermitian_part_p.bind(a, lower=True), S.polygamma(1, x),
                SS.zeta(x + 1.0, av), SS.igamma_da(av, x, 1),
                SS.ibeta_dir(av, av + 1, x / 4.0, 1, 1, 0),
                iir.iir_filter(np.array([1.0, -0.5]), x)]

    def g(x0):
        def body(c, _):
            c = matfun(a[0], "expm") @ c + 0.01
            return c, ftrans.numpy.sum(c)
        return lax.scan(body, x0, None, length=5)

    for fn, args in ((f, (a, x, av)), (g, (np.ones((3, 2)),))):
        ir, _ = stage(fn, args)
        assert not graph_breaks(ir), graph_breaks(ir)
        with warnings.catch_warnings():
            warnings.filterwarnings("error", "Code running in object mode")
            out = _run_compiled(ir, args)
        want = fn(*args)
        for o, w in zip(out, ftrans.tree_util.tree_leaves(want)):
            np.testing.assert_allclose(o, w, rtol=0 if fn is f else 1e-13, atol=0)
