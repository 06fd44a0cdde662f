"""``ftrans.scipy.signal`` against ``scipy.signal`` (values), finite differences
(``check_grads`` order 2, both modes), ``jax.scipy.signal`` (where JAX has the function),
``vmap`` and ``jit``."""
import numpy as np
import pytest

import ftrans
import ftrans.numpy as fnp
from ftrans.scipy import signal as fs
from ftrans.testing import check_grads

ss = pytest.importorskip("scipy.signal", reason="SciPy is the reference")

SHAPES = [((7,), (3,)), ((3,), (7,)), ((5, 6), (2, 3)), ((2, 3), (5, 6)),
          ((4, 5, 3), (2, 2, 2)), ((4, 2), (2, 5))]
FUNCS = [(fs.convolve, ss.convolve), (fs.correlate, ss.correlate),
         (fs.fftconvolve, ss.fftconvolve)]


def _rand(rng, shape, cplx=False, dtype=np.float64):
    x = rng.standard_normal(shape)
    if cplx:
        x = x + 1j * rng.standard_normal(shape)
    return x.astype(dtype if not cplx else np.complex128)


@pytest.mark.parametrize("mode", ["full", "same", "valid"])
@pytest.mark.parametrize("cplx", [False, True])
def test_conv_values_vs_scipy(mode, cplx):
    rng = np.random.default_rng(0)
    for s1, s2 in SHAPES:
        a, b = _rand(rng, s1, cplx), _rand(rng, s2)
        for f, g in FUNCS:
            if mode == "valid" and not (all(x >= y for x, y in zip(s1, s2)) or
                                        all(y >= x for x, y in zip(s1, s2))):
                with pytest.raises(ValueError, match="at least as large"):
                    f(a, b, mode)
                continue
            for x, y in ((a, b), (b, a)):
                np.testing.assert_allclose(np.asarray(f(x, y, mode)), g(x, y, mode),
                                           atol=1e-11, err_msg=f"{f.__name__} {s1} {s2}")


def test_methods_and_errors():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((6, 5)), rng.standard_normal((3, 2))
    for m in ("direct", "fft", "auto"):
        np.testing.assert_allclose(fs.convolve(a, b, "same", method=m),
                                   ss.convolve(a, b, "same", method=m), atol=1e-12)
        np.testing.assert_allclose(fs.correlate(a, b, "full", method=m),
                                   ss.correlate(a, b, "full", method=m), atol=1e-12)
    with pytest.raises(ValueError, match="method"):
        fs.convolve(a, b, method="fast")
    with pytest.raises(ValueError, match="mode"):
        fs.convolve(a, b, mode="middle")
    with pytest.raises(ValueError, match="dimensionality"):
        fs.convolve(a, b[0])
    # integers: SciPy's direct method keeps the integer dtype
    for m in ("direct", "fft"):
        out = fs.convolve(np.arange(4), np.arange(3), method=m)
        ref = ss.convolve(np.arange(4), np.arange(3), method=m)
        assert out.dtype == ref.dtype
        np.testing.assert_array_equal(out, ref)


def test_fftconvolve_axes():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 8)), rng.standard_normal((1, 4))
    for mode in ("full", "same", "valid"):
        np.testing.assert_allclose(fs.fftconvolve(a, b, mode, axes=1),
                                   ss.fftconvolve(a, b, mode, axes=1), atol=1e-12)
    with pytest.raises(ValueError, match="incompatible shapes"):
        fs.fftconvolve(a, rng.standard_normal((2, 4)), axes=-1)


@pytest.mark.parametrize("f", [fs.convolve, fs.correlate, fs.fftconvolve],
                         ids=lambda f: f.__name__)
def test_conv_grads(f):
    rng = np.random.default_rng(3)
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((2, 3))
    for mode in ("full", "same", "valid"):
        check_grads(lambda x, y: f(x, y, mode), (a, b), order=2, modes=("fwd", "rev"))
    ac = a + 1j * rng.standard_normal(a.shape)
    check_grads(lambda x, y: f(x, y, "same"), (ac, b), order=1, modes=("fwd", "rev"))
    a32, b32 = a.astype(np.float32), b.astype(np.float32)
    assert f(a32, b32).dtype == np.float32
    check_grads(lambda x, y: f(x, y, "full"), (a32, b32), order=1, modes=("rev",))


def _filt(rng, nb=3, na=3):
    b = rng.standard_normal(nb)
    a = np.r_[2.0, rng.uniform(-0.4, 0.4, na - 1)]
    return b, a


def test_lfilter_values_vs_scipy():
    rng = np.random.default_rng(4)
    b, a = _filt(rng, 3, 4)
    x = rng.standard_normal((4, 9))
    for axis in (-1, 0):
        np.testing.assert_allclose(fs.lfilter(b, a, x, axis=axis),
                                   ss.lfilter(b, a, x, axis=axis), atol=1e-13)
        zshape = list(x.shape)
        zshape[axis] = 3
        zi = rng.standard_normal(zshape)
        y, zf = fs.lfilter(b, a, x, axis=axis, zi=zi)
        y2, zf2 = ss.lfilter(b, a, x, axis=axis, zi=zi)
        np.testing.assert_allclose(y, y2, atol=1e-13)
        np.testing.assert_allclose(zf, zf2, atol=1e-13)
    # a short signal (fewer samples than the state) and a pure FIR / pure gain
    y, zf = fs.lfilter(b, a, x[0, :2], zi=np.ones(3))
    y2, zf2 = ss.lfilter(b, a, x[0, :2], zi=np.ones(3))
    np.testing.assert_allclose(y, y2, atol=1e-13)
    np.testing.assert_allclose(zf, zf2, atol=1e-13)
    np.testing.assert_allclose(fs.lfilter(b, [1.0], x), ss.lfilter(b, [1.0], x), atol=1e-13)
    np.testing.assert_allclose(fs.lfilter([3.0], [2.0], x), ss.lfilter([3.0], [2.0], x))
    ac = a + 0.1j * rng.standard_normal(a.shape)
    np.testing.assert_allclose(fs.lfilter(b, ac, x), ss.lfilter(b, ac, x), atol=1e-13)
    # a long FIR part (> 16 taps: the convolution primitive instead of shifted sums)
    bl, zl = rng.standard_normal(20), rng.standard_normal((4, 19))
    for out, ref in zip(fs.lfilter(bl, a, x, zi=zl), ss.lfilter(bl, a, x, zi=zl)):
        np.testing.assert_allclose(out, ref, atol=1e-12)
    check_grads(lambda b, x: fs.lfilter(b, a, x), (bl, x[0]), order=1, modes=("fwd", "rev"))
    assert fs.lfilter(b.astype(np.float32), a.astype(np.float32),
                      x.astype(np.float32)).dtype == np.float32


def test_lfilter_errors():
    with pytest.raises(ValueError, match="a\\[0\\]"):
        fs.lfilter([1.0], [0.0, 1.0], np.ones(3))
    with pytest.raises(ValueError, match="1-d"):
        fs.lfilter(np.ones((2, 2)), [1.0], np.ones(3))
    with pytest.raises(ValueError, match="zi must have shape"):
        fs.lfilter([1.0, 2.0], [1.0], np.ones(3), zi=np.ones(2))


def test_lfilter_grads():
    rng = np.random.default_rng(5)
    b, a = _filt(rng)
    x, zi = rng.standard_normal((2, 6)), rng.standard_normal((2, 2))
    check_grads(lambda b, a, x, zi: fs.lfilter(b, a, x, zi=zi), (b, a, x, zi), order=2,
                modes=("fwd", "rev"))
    ac = a + 0.1j * rng.standard_normal(3)
    check_grads(lambda b, a, x: fs.lfilter(b, a, x, axis=0), (b, ac, x.T + 1j), order=2,
                modes=("fwd", "rev"))
    f32 = [t.astype(np.float32) for t in (b, a, x)]
    check_grads(lambda b, a, x: fs.lfilter(b, a, x), f32, order=1, modes=("fwd", "rev"))


def test_lfilter_reverse_is_backward_filter():
    """The gradient in x of <g, lfilter(b, a, x)> is the time-reversed filter of g."""
    rng = np.random.default_rng(6)
    b, a = _filt(rng)
    x, g = rng.standard_normal(12), rng.standard_normal(12)
    gx = ftrans.grad(lambda x: (fs.lfilter(b, a, x) * g).sum())(x)
    np.testing.assert_allclose(gx, ss.lfilter(b, a, g[::-1])[::-1], atol=1e-13)


def test_vmap_and_jit():
    rng = np.random.default_rng(7)
    bs = rng.standard_normal((5, 3))
    as_ = np.c_[np.full(5, 2.0), rng.uniform(-0.4, 0.4, (5, 2))]
    x = rng.standard_normal((2, 8))
    f = lambda b, a, x: fs.lfilter(b, a, x)  # noqa: E731
    out = ftrans.vmap(f, in_axes=(0, 0, None))(bs, as_, x)
    np.testing.assert_allclose(out, np.stack([ss.lfilter(bs[i], as_[i], x) for i in range(5)]),
                               atol=1e-13)
    gv = ftrans.vmap(ftrans.grad(lambda a: (f(bs[0], a, x) ** 2).sum()))(as_)
    gl = np.stack([ftrans.grad(lambda a: (f(bs[0], a, x) ** 2).sum())(as_[i]) for i in range(5)])
    np.testing.assert_allclose(gv, gl, atol=1e-12)
    np.testing.assert_allclose(ftrans.jit(f)(bs[0], as_[0], x), f(bs[0], as_[0], x), atol=1e-14)
    imgs, k = rng.standard_normal((3, 6, 5)), rng.standard_normal((2, 2))
    for g in (fs.convolve, fs.correlate, fs.fftconvolve):
        h = lambda im: g(im, k, "same")  # noqa: E731
        np.testing.assert_allclose(ftrans.vmap(h)(imgs), np.stack([h(i) for i in imgs]),
                                   atol=1e-12)
        np.testing.assert_allclose(ftrans.jit(h)(imgs[0]), h(imgs[0]), atol=1e-12)


def test_vs_jax(jax_x64):
    jsig = pytest.importorskip("jax.scipy.signal", reason="jax.scipy.signal not available")
    jax = jax_x64
    rng = np.random.default_rng(8)
    a, b = rng.standard_normal((5, 6)), rng.standard_normal((2, 3))
    # one mode per function (each JAX call compiles; the modes are checked against SciPy)
    for (f, g), mode in zip(((fs.convolve, jsig.convolve), (fs.correlate, jsig.correlate),
                             (fs.fftconvolve, jsig.fftconvolve)), ("valid", "same", "full")):
        np.testing.assert_allclose(f(a, b, mode), g(a, b, mode), atol=1e-11)
        loss_f = lambda x, y: (f(x, y, mode) ** 2).sum()  # noqa: E731
        loss_g = lambda x, y: (g(x, y, mode) ** 2).sum()  # noqa: E731
        for i in (0, 1):
            np.testing.assert_allclose(ftrans.grad(loss_f, argnums=i)(a, b),
                                       jax.grad(loss_g, argnums=i)(a, b), atol=1e-10)
    # jax.scipy.signal has no lfilter: the reverse mode is checked against the
    # backward filter above


def test_vs_hips_autograd():
    """Gradients against HIPS autograd's ``scipy.signal.convolve`` (its n-d rule)."""
    ag = pytest.importorskip("autograd", reason="HIPS autograd not installed")
    import autograd.numpy as anp
    import autograd.scipy.signal as asig
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((5, 6)), rng.standard_normal((2, 3))
    for mode in ("full", "valid"):
        np.testing.assert_allclose(fs.convolve(a, b, mode), asig.convolve(a, b, mode=mode),
                                   atol=1e-12)
        for i in (0, 1):
            gf = ftrans.grad(lambda x, y: fnp.sum(fnp.sin(fs.convolve(x, y, mode))), argnums=i)(a, b)
            gg = ag.grad(lambda x, y: anp.sum(anp.sin(asig.convolve(x, y, mode=mode))), i)(a, b)
            np.testing.assert_allclose(gf, gg, atol=1e-11)
