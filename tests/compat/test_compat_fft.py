"""``torch.fft``, ``torch.stft``/``istft``, the window factories and ``torch.signal.windows``
in ``ftrans.compat``, against PyTorch: values, dtypes, shapes, node names, gradients
(real, complex, the Hermitian weights of the c2r/r2c transforms, windows), second
derivatives, ``compat.func`` and the exception types of bad arguments.  Skipped without
PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.compat as fc

from compat_diff import assert_same, needs_torch, torch

pytestmark = needs_torch
_R = np.random.default_rng(23)
X = _R.standard_normal((3, 5, 6))
Z = _R.standard_normal((3, 5, 6)) + 1j * _R.standard_normal((3, 5, 6))


def _run(T, call, inputs, create_graph=False):
    """``call(T, *tensors)``: its output summary, the gradients of ``<out, ct>`` for the
    float/complex inputs, and (``create_graph``) the gradient of ``<grads, ct2>``."""
    ts = [T.tensor(a.copy(), requires_grad=a.dtype.kind in "fc") for a in inputs]
    out = call(T, *ts)
    o = out.detach().resolve_conj().numpy() if T is torch else out.detach().numpy()
    res = [str(out.dtype), tuple(out.shape), o]
    leaves = [t for t in ts if t.requires_grad]
    if not leaves:
        return res
    res.append(type(out.grad_fn).__name__ if T is fc else out.grad_fn.name())
    rng = np.random.default_rng(0)
    ct = rng.standard_normal(o.shape) + (1j * rng.standard_normal(o.shape)
                                         if o.dtype.kind == "c" else 0)
    gs = T.autograd.grad(out, leaves, T.tensor(ct.astype(o.dtype)), create_graph=create_graph)
    res.append([g.detach().numpy() if T is fc else g.detach().resolve_conj().numpy()
                for g in gs])
    if create_graph:
        cts = [T.tensor(np.asarray(rng.standard_normal(g.shape) * (1 + 1j if g.is_complex()
                                                                   else 1),
                                   g.detach().numpy().dtype)) for g in gs]
        g2 = T.autograd.grad(list(gs), leaves, cts, allow_unused=True)
        res.append([None if g is None else g.detach().numpy() for g in g2])
    return res


def _check(call, *inputs, create_graph=False, tol=1e-9):
    t = _run(torch, call, inputs, create_graph)
    c = _run(fc, call, inputs, create_graph)
    assert t[:2] == c[:2], (t[:2], c[:2])
    np.testing.assert_allclose(c[2], t[2], rtol=tol, atol=tol)
    if len(t) > 3:
        assert t[3] == c[3], f"node {t[3]} (torch) vs {c[3]} (compat)"
        for a, b in zip(t[4], c[4]):
            np.testing.assert_allclose(b, a, rtol=tol, atol=tol)
    if len(t) > 5:
        for a, b in zip(t[5], c[5]):
            if a is None:
                assert b is None or not np.any(b)
            else:
                np.testing.assert_allclose(b, a, rtol=tol, atol=tol)


ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
N_D = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2", "fftn", "ifftn", "rfftn",
       "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", ONE_D)
@pytest.mark.parametrize("kw", [{}, {"n": 9, "dim": 1, "norm": "ortho"}, {"n": 4},
                                {"dim": 0, "norm": "forward"}])
def test_one_d(name, kw):
    data = X if name in ("rfft", "ihfft") else Z
    _check(lambda T, x: getattr(T.fft, name)(x, **kw), data)
    if name not in ("rfft", "ihfft"):   # real input of the complex transforms
        _check(lambda T, x: getattr(T.fft, name)(x, **kw), X)


@pytest.mark.parametrize("name", N_D)
@pytest.mark.parametrize("kw", [{}, {"s": (4, 8), "dim": (0, 2), "norm": "ortho"},
                                {"s": (-1, 7)}, {"dim": 1}, {"dim": (2, 0, 1),
                                                             "norm": "forward"}])
def test_n_d(name, kw):
    data = X if name.startswith(("rfft", "ihfft")) else Z
    _check(lambda T, x: getattr(T.fft, name)(x, **kw), data)


@pytest.mark.parametrize("name", ["irfft", "hfft", "rfft", "fft"])
def test_second_derivative_and_float32(name):
    data = X if name == "rfft" else Z
    _check(lambda T, x: getattr(T.fft, name)(x * x, n=7, norm="ortho"), data,
           create_graph=True)
    _check(lambda T, x: getattr(T.fft, name)(x), data.astype(
        np.float32 if name == "rfft" else np.complex64), tol=2e-5)


def test_integer_input_and_dtypes():
    _check(lambda T, x: T.fft.fft(x), np.arange(6))
    _check(lambda T, x: T.fft.rfft2(x), np.arange(12).reshape(3, 4))
    _check(lambda T, x: T.fft.fftn(x), np.array([True, False, True]))


@pytest.mark.parametrize("name", ["fftshift", "ifftshift"])
@pytest.mark.parametrize("dim", [None, 0, (1, 2), -1])
def test_shifts(name, dim):
    _check(lambda T, x: getattr(T.fft, name)(x, dim=dim), Z)
    _check(lambda T, x: getattr(T.fft, name)(x, dim=dim), np.arange(30).reshape(5, 6, 1))


@pytest.mark.parametrize("snippet", [
    lambda T: T.fft.fftfreq(7),
    lambda T: T.fft.fftfreq(8, 0.5, dtype=T.float64),
    lambda T: T.fft.rfftfreq(9, d=2.0),
    lambda T: T.fft.fftfreq(5, dtype=T.int64),
])
def test_freqs(snippet):
    assert_same(snippet)


_x = lambda T: T.tensor(X)   # noqa: E731
_z = lambda T: T.tensor(Z)   # noqa: E731


@pytest.mark.parametrize("snippet", [
    lambda T: T.fft.fft(_x(T), n=0),
    lambda T: T.fft.fft(_x(T), norm="bad"),
    lambda T: T.fft.fft(_x(T), dim=3),
    lambda T: T.fft.fft(T.tensor(1.0)),
    lambda T: T.fft.fft2(_x(T), dim=(0, 0)),
    lambda T: T.fft.fftn(_x(T), s=(3,), dim=(0, 1)),
    lambda T: T.fft.fftn(_x(T), s=(3, 4, 5, 6)),
    lambda T: T.fft.rfft(_z(T)),
    lambda T: T.fft.ihfft(_z(T)),
    lambda T: T.fft.rfftn(_z(T)),
    lambda T: T.fft.irfft(T.tensor(Z[..., :1])),
    lambda T: T.fft.rfftn(_x(T), dim=()),
    lambda T: T.fft.fft(_x(T), dim=1.5),
    lambda T: T.fft.fftshift(T.tensor(1.0)),
    lambda T: T.fft.fftshift(_x(T), dim=4),
    lambda T: T.fft.fft2(_x(T), dim=()),
])
def test_errors_and_edges(snippet):
    assert_same(snippet)


# ------------------------------------------------------------------------- stft / istft
SIG = _R.standard_normal((2, 40))


@pytest.mark.parametrize("kw", [
    {"n_fft": 8},
    {"n_fft": 8, "hop_length": 3, "center": False, "normalized": True},
    {"n_fft": 8, "win_length": 6, "pad_mode": "constant"},
    {"n_fft": 8, "onesided": False, "pad_mode": "replicate"},
    {"n_fft": 8, "pad_mode": "circular", "hop_length": 5},
    {"n_fft": 8, "win_length": 5, "hop_length": 2, "center": False, "align_to_window": True},
])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_stft(kw):
    _check(lambda T, x: T.stft(x, return_complex=True, **kw), SIG)
    _check(lambda T, x: T.stft(x, return_complex=True, **kw), SIG[0])
    if "align_to_window" not in kw:   # (torch 2.13 fails on this short complex input)
        _check(lambda T, x: x.stft(return_complex=True, **kw), Z[0, :, :].reshape(2, 15))
    win = kw.get("win_length", 8)
    _check(lambda T, x, w: T.stft(x, window=w, return_complex=True, **kw), SIG,
           np.hanning(win + 2)[1:-1])
    _check(lambda T, x, w: T.stft(x, window=w, return_complex=False, **kw), SIG,
           _R.standard_normal(win))


@pytest.mark.parametrize("kw", [
    {"n_fft": 8},
    {"n_fft": 8, "hop_length": 2, "center": False, "normalized": True},
    {"n_fft": 8, "win_length": 6, "hop_length": 2, "length": 18},
    {"n_fft": 8, "length": 60},
    {"n_fft": 8, "onesided": False, "return_complex": True},
])
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_istft(kw):
    freq = 8 if kw.get("onesided") is False else 5
    spec = _R.standard_normal((2, freq, 9)) + 1j * _R.standard_normal((2, freq, 9))
    _check(lambda T, z: T.istft(z, **kw), spec)
    _check(lambda T, z: z.istft(**kw), spec[0])
    win = kw.get("win_length", 8)
    _check(lambda T, z, w: T.istft(z, window=w, **kw), spec, 0.5 + _R.random(win))


def test_stft_istft_roundtrip_and_second_derivative():
    def call(T, x, w):
        return T.istft(T.stft(x, 8, window=w, return_complex=True), 8, window=w, length=40)
    _check(call, SIG, 0.5 + _R.random(8), create_graph=True)


@pytest.mark.parametrize("snippet", [
    lambda T: T.stft(T.tensor(SIG), 8),
    lambda T: T.stft(T.tensor(SIG), 80, return_complex=True),
    lambda T: T.stft(T.tensor(SIG), 8, hop_length=0, return_complex=True),
    lambda T: T.stft(T.tensor(SIG), 8, win_length=9, return_complex=True),
    lambda T: T.stft(T.tensor(SIG), 8, window=T.ones(7), return_complex=True),
    lambda T: T.stft(T.tensor(Z), 8, return_complex=True),
    lambda T: T.stft(T.tensor(SIG[:, :3]), 8, return_complex=True),
    lambda T: T.stft(T.tensor(Z[0]), 4, onesided=True, return_complex=True),
    lambda T: T.stft(T.tensor(SIG), 8, return_complex=True, align_to_window=False),
    lambda T: T.istft(T.tensor(SIG[:, :5]), 8),
    lambda T: T.istft(T.tensor(Z[:, :4]), 8),
    lambda T: T.istft(T.tensor(Z[:, :5]), 8, onesided=False),
    lambda T: T.istft(T.tensor(Z[0, :5]), 8, window=T.zeros(8)),
    lambda T: T.istft(T.tensor(Z[0, :5]), 8, hop_length=9),
    lambda T: T.istft(T.tensor(Z[0, :5]), 8, win_length=6, hop_length=2, length=30),
    lambda T: T.istft(T.tensor(Z[0, :5]), 8, return_complex=True),
])
def test_stft_istft_errors(snippet):
    assert_same(snippet)


# ------------------------------------------------------------------------- windows
@pytest.mark.parametrize("name,kw", [
    ("hann_window", {}), ("hamming_window", {}), ("blackman_window", {}),
    ("bartlett_window", {}), ("kaiser_window", {}), ("hamming_window", {"alpha": 0.6,
                                                                        "beta": 0.3}),
    ("kaiser_window", {"beta": 5.0}),
])
@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_window_factories(name, kw, n):
    assert_same(lambda T: getattr(T, name)(n, **kw))
    assert_same(lambda T: getattr(T, name)(n, False, dtype=T.float64, **kw), rtol=1e-12)


@pytest.mark.parametrize("snippet", [
    lambda T: T.hann_window(-1),
    lambda T: T.hann_window(4, dtype=T.int64),
    lambda T: T.hann_window(4.0),
    lambda T: T.kaiser_window(5, requires_grad=True).requires_grad,
    lambda T: T.signal.windows.hann(4, dtype=T.int64),
    lambda T: T.signal.windows.hann(-2),
    lambda T: T.signal.windows.exponential(4, center=1.0),
    lambda T: T.signal.windows.exponential(4, tau=0.0),
    lambda T: T.signal.windows.gaussian(4, std=-1.0),
    lambda T: T.signal.windows.kaiser(4, beta=-1.0),
    lambda T: T.signal.windows.general_cosine(4, a=None),
    lambda T: T.signal.windows.general_cosine(4, a=[]),
])
def test_window_errors(snippet):
    assert_same(snippet)


@pytest.mark.parametrize("name,kw", [
    ("bartlett", {}), ("blackman", {}), ("cosine", {}), ("exponential", {"tau": 2.5}),
    ("exponential", {"center": 1.5, "sym": False}), ("gaussian", {"std": 1.7}),
    ("general_cosine", {"a": [0.4, 0.3, 0.2]}), ("general_hamming", {"alpha": 0.6}),
    ("hamming", {}), ("hann", {}), ("kaiser", {"beta": 4.0}), ("nuttall", {}),
])
@pytest.mark.parametrize("n", [0, 1, 9])
def test_signal_windows(name, kw, n):
    f = lambda T, **k: getattr(T.signal.windows, name)(n, **kw, **k)   # noqa: E731
    assert_same(lambda T: f(T, sym=kw.get("sym", True)))
    if "sym" not in kw:
        assert_same(lambda T: f(T, sym=False, dtype=T.float64), rtol=1e-12)


# ------------------------------------------------------------------------- compat.func
def test_func_grad_and_vmap():
    def loss(T, x):
        return T.fft.irfft(T.fft.rfft(x) * T.fft.rfft(x)).pow(2).sum()
    x = X[0]
    tx = torch.tensor(x, requires_grad=True)
    (tg,) = torch.autograd.grad(loss(torch, tx), [tx])
    cg = fc.func.grad(lambda v: loss(fc, v))(fc.tensor(x))
    np.testing.assert_allclose(cg.numpy(), tg.numpy(), rtol=1e-9, atol=1e-9)
    tv = torch.fft.hfft(torch.tensor(Z[0]), 7)    # (batched along the leading axis)
    cv = fc.func.vmap(lambda v: fc.fft.hfft(v, 7))(fc.tensor(Z[0]))
    np.testing.assert_allclose(cv.numpy(), tv.numpy(), rtol=1e-9, atol=1e-9)


def test_warnings_as_torch():
    """PyTorch's warnings (it warns once per process: its own calls are not checked)."""
    for T in (fc,):
        with pytest.warns(UserWarning, match="A window was not provided"):
            T.stft(T.tensor(SIG), 8, return_complex=True)
        with pytest.warns(UserWarning, match="return_complex=False is deprecated"):
            T.stft(T.tensor(SIG), 8, window=T.ones(8, dtype=T.float64), return_complex=False)
        with pytest.warns(UserWarning, match="padded with zeros in the tail"):
            T.istft(T.tensor(Z[0, :5]), 8, window=T.ones(8, dtype=T.float64), length=60)
