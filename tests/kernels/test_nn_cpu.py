"""The CNN hot-path kernels (ftrans/kernels/nn_cpu.py, window_cpu's 2x2 max and
scatter) against independent references: NumPy formulas written here (the convolution
by a loop over window taps) and the generic window kernel."""
import numpy as np
import pytest

from ftrans.kernels import nn_cpu as K
from ftrans.kernels import window_cpu as W
from ftrans.primitives.conv import conv_general_dilated_p as conv_p

pytest.importorskip("numba")

TOL = {np.float64: 1e-12, np.float32: 2e-5}


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_relu_kernels_match_where(dt):
    x = np.array([[-1.0, 0.0, -0.0, 2.0], [np.nan, np.inf, -np.inf, 3.0]], dt)
    g = np.array([[1.0, 2.0, 3.0, np.nan], [4.0, np.inf, 6.0, -7.0]], dt)
    np.testing.assert_array_equal(K.relu(x), np.where(x > 0, x, 0))
    np.testing.assert_array_equal(K.relu_backward(x, g), np.where(x > 0, g, 0))
    assert K.relu(x).dtype == dt
    assert K.relu(x.T) is None            # not C-contiguous: the caller's generic path
    assert K.relu(np.ones((2, 2), np.int64)) is None


GEOMETRIES = [  # x shape, w shape, stride, padding, dilation
    ((4, 1, 8, 8), (3, 1, 3, 3), (1, 1), ((1, 1), (1, 1)), (1, 1)),
    ((3, 4, 5, 5), (6, 4, 3, 3), (1, 1), ((0, 0), (0, 0)), (1, 1)),
    ((2, 3, 9, 7), (5, 3, 3, 2), (2, 1), ((0, 2), (1, 0)), (1, 2)),
    ((2, 2, 6, 6), (2, 2, 1, 1), (3, 2), ((2, 2), (0, 1)), (1, 1)),
    # more output positions than one flat offset table takes: the per-axis loops
    ((2, 2, 18, 17), (3, 2, 3, 3), (1, 1), ((1, 1), (2, 0)), (1, 2)),
]


def test_geometries_take_both_loop_plans():
    positions = [K._geometry(g[0], g[1][2:], g[2], g[3], g[4])[2:] for g in GEOMETRIES]
    assert min(h * w for h, w in positions) <= K.FLAT_MAX_POSITIONS < max(
        h * w for h, w in positions)


def _conv_reference(x, w, ct, st, pad, dil):
    """Output, weight and input gradients by a loop over the window taps (einsum per
    tap over a zero-padded copy): the definition, independent of any im2col."""
    N, C, H, W = x.shape
    O, _, kh, kw = w.shape
    (a, b), (c, d) = pad
    xp = np.zeros((N, C, H + a + b, W + c + d))
    xp[:, :, a:a + H, c:c + W] = x
    oh = (xp.shape[2] - dil[0] * (kh - 1) - 1) // st[0] + 1
    ow = (xp.shape[3] - dil[1] * (kw - 1) - 1) // st[1] + 1
    out = np.zeros((N, O, oh, ow))
    gw = np.zeros(w.shape)
    gxp = np.zeros(xp.shape)
    for u in range(kh):
        for v in range(kw):
            si = slice(u * dil[0], u * dil[0] + (oh - 1) * st[0] + 1, st[0])
            sj = slice(v * dil[1], v * dil[1] + (ow - 1) * st[1] + 1, st[1])
            tap = xp[:, :, si, sj]
            out += np.einsum("ncij,oc->noij", tap, w[:, :, u, v])
            if ct is not None:
                gw[:, :, u, v] = np.einsum("noij,ncij->oc", ct, tap)
                gxp[:, :, si, sj] += np.einsum("noij,oc->ncij", ct, w[:, :, u, v])
    return out, gw, gxp[:, :, a:a + H, c:c + W]


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("geo", GEOMETRIES)
def test_conv2d_kernels_match_definition(geo, dt):
    xs, ws, st, pad, dil = geo
    rng = np.random.default_rng(0)
    x = rng.standard_normal(xs).astype(dt)
    w = rng.standard_normal(ws).astype(dt)
    assert K.conv2d_eligible(x, w, (1, 1), 1)
    out, cols = K.conv2d_forward(x, w, st, pad, dil)
    ct = rng.standard_normal(out.shape).astype(dt)
    ref, gw, gx = _conv_reference(x.astype(np.float64), w.astype(np.float64),
                                  ct.astype(np.float64), st, pad, dil)
    assert out.dtype == dt and out.shape == ref.shape and out.flags.c_contiguous
    np.testing.assert_allclose(out, ref, rtol=TOL[dt], atol=TOL[dt] * 10)
    np.testing.assert_allclose(K.conv2d_grad_weight(ct, cols, w.shape), gw, rtol=TOL[dt],
                               atol=TOL[dt] * 10)
    np.testing.assert_allclose(K.conv2d_grad_input(ct, w, x.shape, st, pad, dil), gx,
                               rtol=TOL[dt], atol=TOL[dt] * 10)
    # the primitive's impl takes this path for such operands
    prm = dict(window_strides=st, padding=pad, lhs_dilation=(1, 1), rhs_dilation=dil,
               feature_group_count=1)
    np.testing.assert_allclose(conv_p.impl(x, w, **prm), ref, rtol=TOL[dt], atol=TOL[dt] * 10)
    # conv_patches' layout (rows channel-major): the kernel matrix times the patches is the
    # convolution, and col2im of the windows' cotangent is the input gradient
    O, N = ws[0], xs[0]
    patches = K.patches2d(x, ws[2:], st, pad, dil, (1, 1))
    assert patches.dtype == dt and patches.shape == (w[0].size, N * ref[0, 0].size)
    pout = (w.reshape(O, -1) @ patches).reshape((O, N) + ref.shape[2:]).transpose(1, 0, 2, 3)
    np.testing.assert_allclose(pout, ref, rtol=TOL[dt], atol=TOL[dt] * 10)
    dcols = w.reshape(O, -1).T @ ct.transpose(1, 0, 2, 3).reshape(O, -1)
    g = K.patches2d_transpose(dcols, xs, ws[2:], st, pad, dil, (1, 1))
    assert g.dtype == dt
    np.testing.assert_allclose(g, gx, rtol=TOL[dt], atol=TOL[dt] * 10)
    # not eligible: input dilation, cropping, complex (the primitive's generic path)
    assert K.patches2d(x, ws[2:], st, pad, dil, (2, 1)) is None
    assert K.patches2d(x, ws[2:], st, ((-1, 0), (0, 0)), dil, (1, 1)) is None
    assert K.patches2d_transpose(dcols.astype(np.complex128), xs, ws[2:], st, pad, dil,
                                 (1, 1)) is None


def test_conv2d_eligibility():
    x = np.ones((1, 2, 4, 4))
    w = np.ones((2, 2, 3, 3))
    assert not K.conv2d_eligible(x, w, (1, 1), 2)           # groups
    assert not K.conv2d_eligible(x, w, (2, 1), 1)           # input dilation
    assert not K.conv2d_eligible(x.astype(np.float32), w, (1, 1), 1)   # mixed dtypes
    assert K.conv2d_forward(x, w, (1, 1), ((-1, 0), (0, 0)), (1, 1)) is None   # cropping


def _bn_reference(x, w, b, eps, ct):
    axes = (0,) + tuple(range(2, x.ndim))
    sh = (1, -1) + (1,) * (x.ndim - 2)
    n = x.size // x.shape[1]
    m = x.mean(axis=axes)
    v = ((x - m.reshape(sh)) ** 2).mean(axis=axes)
    inv = 1 / np.sqrt(v + eps)
    xhat = (x - m.reshape(sh)) * inv.reshape(sh)
    out = xhat * w.reshape(sh) + b.reshape(sh)
    g = ct * w.reshape(sh)
    dx = inv.reshape(sh) * (g - g.sum(axis=axes).reshape(sh) / n
                            - xhat * (g * xhat).sum(axis=axes).reshape(sh) / n)
    return out, m, v, inv, dx, (ct * xhat).sum(axis=axes), ct.sum(axis=axes)


@pytest.mark.parametrize("shape", [(8, 3, 4, 5), (6, 4), (5, 2, 7)])
def test_batch_norm_kernels_match_formula(shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape) * 3 + 100.0       # a large mean: no cancellation
    w = rng.standard_normal(shape[1])
    b = rng.standard_normal(shape[1])
    ct = rng.standard_normal(shape)
    out, m, v, inv, dx, dw, db = _bn_reference(x, w, b, 1e-5, ct)
    r = K.batch_norm_train(x, w, b, 1e-5)
    for got, want in zip(r, (out, m, v, inv)):
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    gdx, gdw, gdb = K.batch_norm_backward(x, ct, r[1], r[3], w, True)
    np.testing.assert_allclose(gdx, dx, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(gdw, dw, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(gdb, db, rtol=1e-10, atol=1e-12)
    # eval mode: dx = ct * w * invstd
    edx = K.batch_norm_backward(x, ct, m, inv, w, False)[0]
    sh = (1, -1) + (1,) * (x.ndim - 2)
    np.testing.assert_allclose(edx, ct * (w * inv).reshape(sh), rtol=1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("stride", [(2, 2), (1, 1), (1, 2)])
def test_max2x2_matches_generic_kernel(dt, stride):
    """Ties, NaNs and -inf: the unrolled 2x2 kernel picks the same value and index as
    the generic window loop (first maximum in row-major order; NaN wins)."""
    rng = np.random.default_rng(2)
    x = rng.integers(0, 3, (5, 6, 7)).astype(dt)      # many ties
    x[0, 0, 0] = np.nan
    x[1, 2, 3] = np.nan
    x[1, 2, 2] = np.nan
    x[2, :2, :2] = -np.inf
    oh = (6 - 2) // stride[0] + 1
    ow = (7 - 2) // stride[1] + 1
    out1, idx1 = np.empty((5, oh, ow), dt), np.empty((5, oh, ow), np.int64)
    out2, idx2 = np.empty_like(out1), np.empty_like(idx1)
    kern = W._get()
    kern[0](x, 2, 2, stride[0], stride[1], 0, 0, 1, 1, out1, idx1)
    kern[3](x, stride[0], stride[1], out2, idx2)
    np.testing.assert_array_equal(out1, out2)
    np.testing.assert_array_equal(idx1, idx2)
    # and through the public entry point
    out3, idx3 = W.window_max(x, (1, 2, 2), (1,) + stride, ((0, 0),) * 3, (1, 1, 1), True)
    np.testing.assert_array_equal(out3, out1)
    np.testing.assert_array_equal(idx3, idx1)


def test_scatter_flat_sums_repeats():
    idx = np.array([[0, 3], [3, 5]])
    ct = np.array([[1.0, 2.0], [4.0, 8.0]])
    ref = np.zeros(6)
    np.add.at(ref, idx.ravel(), ct.ravel())
    np.testing.assert_array_equal(W.scatter_flat(idx, ct, (2, 3), np.float64), ref.reshape(2, 3))
    assert W.scatter_flat(idx, ct.astype(np.float32), (2, 3), np.float64) is None
