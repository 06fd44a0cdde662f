"""Forward-mode AD (``ftrans.compat.autograd.forward_ad``).

Three checks per operation of a table (unary, binary with broadcasting and scalars,
reductions, softmax, matmul, indexing and views, in-place operations, dtype conversions,
complex operations):

* differential: primal and tangent against ``torch.autograd.forward_ad`` (skipped without
  PyTorch);
* the tangent against the central finite difference ``(f(x + eps t) - f(x - eps t)) /
  (2 eps)`` computed with plain compat operations;
* the tangent against ``J t`` assembled from the compat *backward*: for each output
  element ``i``, ``autograd.grad`` with the cotangent ``e_i`` (and ``1j e_i`` for complex
  outputs) gives the row ``g`` with ``Re <g, t> = Re (J t)_i`` (the VJP is the adjoint of
  the JVP for ``Re <a, b>``: autograd notes, "Autograd for Complex Numbers").

Then the API: levels, ``make_dual``/``unpack_dual`` errors (types compared with PyTorch),
grad modes, in-place semantics on tangents and views, and the internal helpers.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ftrans.compat as fc
import ftrans.compat.autograd.forward_ad as ffw
from ftrans.compat import _ops
from compat_diff import needs_torch

try:
    import torch
    import torch.autograd.forward_ad as tfw
except ImportError:  # pragma: no cover - exercised where torch is missing
    torch = tfw = None


@pytest.fixture(autouse=True)
def _no_level_left():
    """A failing test must not leave a dual level active for the next one."""
    yield
    while ffw._current_level >= 0:
        ffw.exit_dual_level()
    if tfw is not None:
        while tfw._current_level >= 0:
            tfw.exit_dual_level()


def _fw(T):
    return ffw if T is fc else tfw


def _np(t):
    return None if t is None else np.array(t.detach().numpy(), copy=True)


# ------------------------------------------------------------------------ input specs
def _data(spec, rng):
    """An array for ``(shape, kind)``: r real, p positive, u in (-0.9, 0.9), c complex,
    i integer (no tangent); a trailing '0' means: a constant operand (no tangent)."""
    shape, kind = spec
    k = kind.rstrip("0")
    if k == "r":
        return rng.standard_normal(shape)
    if k == "p":
        return rng.uniform(0.5, 2.0, shape)
    if k == "u":
        return rng.uniform(-0.9, 0.9, shape)
    if k == "c":
        return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if k == "i":
        return rng.integers(-3, 4, shape)
    raise ValueError(kind)


def _has_tangent(spec):
    return spec[1][-1] != "0" and spec[1] != "i"


def _inputs(specs, seed):
    rng = np.random.default_rng(seed)
    xs = [_data(s, rng) for s in specs]
    ts = [_data((s[0], "c" if s[1].startswith("c") else "r"), rng) if _has_tangent(s) else None
          for s in specs]
    return xs, ts


def _dual_call(T, fn, xs, ts):
    """``fn`` on dual tensors (inside a level): (primal, tangent) as arrays."""
    fw = _fw(T)
    with fw.dual_level():
        args = []
        for x, t in zip(xs, ts):
            a = T.tensor(x)
            args.append(a if t is None else fw.make_dual(a, T.tensor(t)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn(T, *args)
        p, tan = fw.unpack_dual(out)
        return _np(p), _np(tan)


R34, R4, R3, R14, R31 = ((3, 4), "r"), ((4,), "r"), ((3,), "r"), ((1, 4), "r"), ((3, 1), "r")
P34, C3, C34 = ((3, 4), "p"), ((3,), "c"), ((3, 4), "c")
TIES = np.array([[1.0, 5.0, 5.0, 0.0], [2.0, 2.0, -1.0, 2.0], [0.5, 0.1, 0.2, 0.3]])


def _inplace_view(T, a, b):
    base = T.zeros(3, 4, dtype=T.float64)
    base[1].add_(a[0] * b)    # an in-place op on a view: the base's tangent is updated
    return base * 1.0


def _setitem(T, a, b):
    y = a.clone()
    y[T.tensor([0, 2]), T.tensor([1, 3])] = b[:2]
    y[1, 1:3] = b[2:4] * 2.0
    return y


def _cplx_inplace(T, a, b):
    y = a.clone()
    y.mul_(b)
    return y


# name -> (fn(T, *tensors), specs, options); options: "nofd" (not differentiable at the
# data: no finite differences), "f32" (computes in float32: looser tolerances)
CASES = {
    # unary
    "exp": (lambda T, x: x.exp(), [R34], ""),
    "log": (lambda T, x: T.log(x), [P34], ""),
    "sin": (lambda T, x: x.sin(), [R34], ""),
    "cos": (lambda T, x: T.cos(x), [R34], ""),
    "tan": (lambda T, x: x.tan(), [((3, 4), "u")], ""),
    "tanh": (lambda T, x: x.tanh(), [R34], ""),
    "sqrt": (lambda T, x: x.sqrt(), [P34], ""),
    "rsqrt": (lambda T, x: x.rsqrt(), [P34], ""),
    "reciprocal": (lambda T, x: x.reciprocal(), [P34], ""),
    "sigmoid": (lambda T, x: T.sigmoid(x), [R34], ""),
    "relu": (lambda T, x: T.relu(x), [R34], ""),
    "abs": (lambda T, x: x.abs(), [R34], ""),
    "neg": (lambda T, x: -x, [R34], ""),
    "asin": (lambda T, x: x.asin(), [((3, 4), "u")], ""),
    "atan": (lambda T, x: x.atan(), [R34], ""),
    "sinh_cosh": (lambda T, x: x.sinh() + x.cosh(), [R34], ""),
    "log1p_expm1": (lambda T, x: x.log1p() * x.expm1(), [P34], ""),
    "log2_log10": (lambda T, x: x.log2() - x.log10(), [P34], ""),
    "exp2": (lambda T, x: x.exp2(), [R34], ""),
    "square": (lambda T, x: x.square(), [R34], ""),
    "clamp": (lambda T, x: x.clamp(-0.5, 0.7), [R34], ""),
    "floor": (lambda T, x: x.floor(), [R34], "nofd"),
    "sign": (lambda T, x: T.sign(x), [R34], "nofd"),
    # binary
    "add_bcast": (lambda T, x, y: x + y, [R34, R4], ""),
    "sub_alpha": (lambda T, x, y: T.sub(x, y, alpha=2.0), [R34, R14], ""),
    "mul_outer_bcast": (lambda T, x, y: x * y, [R31, R14], ""),
    "div": (lambda T, x, y: x / y, [R34, P34], ""),
    "rdiv_scalar": (lambda T, x: 2.0 / x, [P34], ""),
    "mul_scalar": (lambda T, x: 3 * x - 1.5, [R34], ""),
    "pow_tt": (lambda T, x, y: x ** y, [P34, R4], ""),
    "pow_scalar": (lambda T, x: x ** 2.5, [P34], ""),
    "pow_int": (lambda T, x: x ** 3, [R34], ""),
    "rpow": (lambda T, x: 2.0 ** x, [R34], ""),
    "maximum": (lambda T, x, y: T.maximum(x, y), [R34, R4], ""),
    "minimum": (lambda T, x, y: T.minimum(x, y), [R34, R34], ""),
    "atan2": (lambda T, x, y: T.atan2(x, y), [R34, P34], ""),
    "one_constant": (lambda T, x, y: x * y + y, [R34, ((3, 4), "r0")], ""),
    "int_operand": (lambda T, x, k: x * k, [R34, ((3, 4), "i")], ""),
    "promote_f32": (lambda T, x, y: x + y.float(), [R34, R34], "f32"),
    "where": (lambda T, x, y: T.where(x > 0, x, y), [R34, R4], ""),
    "where_scalar": (lambda T, x: T.where(x > 0, x, 0.0), [R34], ""),
    "masked_fill": (lambda T, x, v: x.masked_fill(x < 0, v[0]), [R34, R4], ""),
    # reductions
    "sum": (lambda T, x: x.sum(), [R34], ""),
    "sum_dim": (lambda T, x: x.sum(1, keepdim=True), [R34], ""),
    "mean": (lambda T, x: x.mean(), [R34], ""),
    "mean_dim": (lambda T, x: T.mean(x, dim=0), [R34], ""),
    "prod": (lambda T, x: x.prod(), [R34], ""),
    "prod_dim": (lambda T, x: x.prod(1), [R34], ""),
    "amax_ties": (lambda T, x: x.amax(1), [TIES], "nofd"),
    "max_dim": (lambda T, x: x.max(dim=1).values, [R34], ""),
    "min_all": (lambda T, x: x.min(), [R34], ""),
    "norm": (lambda T, x: x.norm(), [R34], ""),
    "norm_dim": (lambda T, x: T.norm(x, dim=1), [R34], ""),
    "var_std": (lambda T, x: x.var(1) + x.std(0).sum(), [R34], ""),
    "logsumexp": (lambda T, x: T.logsumexp(x, 1), [R34], ""),
    "softmax": (lambda T, x: T.softmax(x, 1), [R34], ""),
    "log_softmax": (lambda T, x: x.log_softmax(0), [R34], ""),
    # matmul
    "mm": (lambda T, x, y: x @ y, [R34, ((4, 2), "r")], ""),
    "mv": (lambda T, x, y: T.mv(x, y), [R34, R4], ""),
    "dot": (lambda T, x, y: T.dot(x, y), [R4, R4], ""),
    "bmm_bcast": (lambda T, x, y: T.matmul(x, y), [((2, 3, 4), "r"), ((4, 2), "r")], ""),
    "vec_mat": (lambda T, x, y: x @ y, [R3, R34], ""),
    # indexing and views
    "getitem_int": (lambda T, x: x[1], [R34], ""),
    "getitem_slice": (lambda T, x: x[:, 1:3], [R34], ""),
    "getitem_scalar": (lambda T, x: x[1, 2], [R34], ""),
    "getitem_tensor": (lambda T, x: x[T.tensor([2, 0, 2])], [R34], ""),
    "getitem_mask": (lambda T, x: x[x > 0], [R34], ""),
    "reshape": (lambda T, x: x.reshape(2, 6), [R34], ""),
    "view_t": (lambda T, x: x.t().reshape(-1), [R34], ""),
    "transpose_permute": (lambda T, x: x.unsqueeze(0).permute(2, 0, 1).transpose(0, 2),
                          [R34], ""),
    "expand": (lambda T, x: x.expand(2, 3, 4) * 1.0, [R34], ""),
    "squeeze_flatten": (lambda T, x: x.reshape(3, 1, 4).squeeze(1).flatten(), [R34], ""),
    "narrow_select": (lambda T, x: x.narrow(1, 1, 2).select(0, 2), [R34], ""),
    "index_select": (lambda T, x: x.index_select(1, T.tensor([3, 0])), [R34], ""),
    "gather": (lambda T, x: x.gather(1, T.tensor([[0, 1], [2, 2], [3, 0]])), [R34], ""),
    "flip": (lambda T, x: x.flip(0), [R34], ""),
    "cat": (lambda T, x, y: T.cat([x, y], 0), [R34, R14], ""),
    "stack": (lambda T, x, y: T.stack([x, y], 1), [R34, ((3, 4), "r0")], ""),
    "tril": (lambda T, x: x.tril(), [R34], ""),
    "diagonal": (lambda T, x: x.diagonal(), [R34], ""),
    "chunk_unbind": (lambda T, x: x.chunk(2, 1)[1] * x.unbind(0)[2][:2], [R34], ""),
    "repeat": (lambda T, x: x.repeat(2, 1), [R34], ""),
    "clone": (lambda T, x: x.clone(), [R34], ""),
    # in-place
    "mul_": (lambda T, x, y: x.clone().mul_(y), [R34, R4], ""),
    "add_into_plain": (lambda T, x: T.zeros(3, 4, dtype=T.float64).add_(x), [R34], ""),
    "sin_exp_": (lambda T, x: (x * 1.0).sin_().exp_(), [R34], ""),
    "clamp_": (lambda T, x: (x * 1.0).clamp_(-0.5, 0.5), [R34], ""),
    "inplace_view": (_inplace_view, [R34, R4], ""),
    "setitem": (_setitem, [R34, R4], ""),
    "zero_": (lambda T, x: (x * 1.0).zero_(), [R34], ""),
    "fill_": (lambda T, x: (x * 2.0).fill_(3.0), [R34], ""),
    "copy_": (lambda T, x, y: (x * 1.0).copy_(y), [R34, R4], ""),
    "pow_": (lambda T, x: (x * 1.0).pow_(2), [R34], ""),
    # dtype conversions
    "to_float32": (lambda T, x: x.to(T.float32) * 2, [R34], "f32"),
    "double_of_f32": (lambda T, x: x.float().double().sin(), [R34], "f32"),
    # complex
    "c_mul": (lambda T, x, y: x * y, [C3, C3], ""),
    "c_exp_sin": (lambda T, x: x.exp() + x.sin(), [C3], ""),
    "c_abs": (lambda T, x: x.abs(), [C3], ""),
    "c_conj": (lambda T, x: x.conj() * 1.0, [C3], ""),
    "c_real_imag": (lambda T, x: x.real * x.imag, [C3], ""),
    "c_div": (lambda T, x, y: x / y, [C3, C3], ""),
    "c_matmul": (lambda T, x, y: x @ y, [C34, ((4, 2), "c")], ""),
    "c_sum_mean": (lambda T, x: x.sum(0) + x.mean(1)[0], [C34], ""),
    "c_sgn": (lambda T, x: x.sgn(), [C3], ""),
    "c_inplace": (_cplx_inplace, [C3, C3], ""),
    "c_sqrt_recip": (lambda T, x: x.sqrt().reciprocal(), [C3], ""),
    "c_of_real": (lambda T, x, y: x * y.to(T.complex128), [C3, R3], ""),
    # a composition
    "mlp": (lambda T, x, w, b: T.log_softmax(T.tanh(x @ w + b), 1).sum(0) * x[0, :1].exp(),
            [R34, ((4, 5), "r"), ((5,), "r")], ""),
}


def _spec(s):
    return s if isinstance(s, tuple) else (s.shape, "r")


def _case_inputs(name):
    fn, specs, opts = CASES[name]
    seed = sorted(CASES).index(name)
    fixed = [s for s in specs if isinstance(s, np.ndarray)]
    xs, ts = _inputs([_spec(s) for s in specs], seed)
    if fixed:
        xs = [s.copy() if isinstance(s, np.ndarray) else x for s, x in zip(specs, xs)]
    return fn, xs, ts, opts


@needs_torch
@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_torch(name):
    fn, xs, ts, opts = _case_inputs(name)
    pt, tt = _dual_call(torch, fn, xs, ts)
    pf, tf = _dual_call(fc, fn, xs, ts)
    np.testing.assert_allclose(pf, pt, rtol=1e-10, atol=1e-12)
    assert (tf is None) == (tt is None), (tf, tt)
    assert tf.dtype == tt.dtype and tf.shape == tt.shape
    np.testing.assert_allclose(tf, tt, rtol=1e-9, atol=1e-12)


def _plain(fn, xs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.array(fn(fc, *[fc.tensor(x) for x in xs]).numpy(), copy=True)


@pytest.mark.parametrize("name", sorted(n for n in CASES if "nofd" not in CASES[n][2]))
def test_tangent_matches_finite_differences(name):
    fn, xs, ts, opts = _case_inputs(name)
    _, tan = _dual_call(fc, fn, xs, ts)
    eps, tol = (1e-2, 1e-3) if "f32" in opts else (1e-6, 1e-6)
    plus = _plain(fn, [x if t is None else x + eps * t for x, t in zip(xs, ts)])
    minus = _plain(fn, [x if t is None else x - eps * t for x, t in zip(xs, ts)])
    np.testing.assert_allclose(tan, (plus - minus) / (2 * eps), rtol=10 * tol, atol=tol)


def _re_inner(a, b):
    return float(np.real(np.vdot(a, b)))


@pytest.mark.parametrize("name", sorted(CASES))
def test_tangent_matches_backward_rows(name):
    fn, xs, ts, opts = _case_inputs(name)
    _, tan = _dual_call(fc, fn, xs, ts)
    args = [fc.tensor(x, requires_grad=t is not None) for x, t in zip(xs, ts)]
    leaves = [a for a, t in zip(args, ts) if t is not None]
    tangents = [t for t in ts if t is not None]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = fn(fc, *args)
    if not out.requires_grad:   # no path from a leaf with a tangent: zero tangent
        np.testing.assert_array_equal(tan, np.zeros_like(tan))
        return
    od = out.detach().numpy()
    rows = np.zeros(od.shape, od.dtype)
    scales = (1.0, 1j) if od.dtype.kind == "c" else (1.0,)
    for i in np.ndindex(od.shape):
        for s in scales:
            e = np.zeros(od.shape, od.dtype)
            e[i] = s
            gs = fc.autograd.grad(out, leaves, fc.tensor(e), retain_graph=True,
                                  allow_unused=True, materialize_grads=True)
            rows[i] += s * sum(_re_inner(g.numpy(), t) for g, t in zip(gs, tangents))
    tol = 1e-6 if "f32" in opts else 1e-12
    np.testing.assert_allclose(tan, rows, rtol=1000 * tol, atol=tol)


# ------------------------------------------------------------------------------ API
def _err(fn, T):
    try:
        fn(T)
    except Exception as e:  # noqa: BLE001 - the type is the result
        return type(e).__name__, str(e)
    return None


ERRORS = {
    "make_dual_no_level": lambda T: _fw(T).make_dual(T.ones(3), T.ones(3)),
    "exit_no_level": lambda T: _fw(T).exit_dual_level(),
    "shape": lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(3), T.ones(4))),
    "shape_bcast": lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(3), T.ones(1))),
    "int_primal": lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(3).long(), T.ones(3))),
    "int_tangent": lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(3), T.ones(3).long())),
    "bad_level": lambda T: _in_level(T, lambda fw: fw.make_dual(T.ones(3), T.ones(3), level=4)),
    "nested": lambda T: _in_level(T, lambda fw: fw.enter_dual_level()),
    "exit_other": lambda T: _in_level(T, lambda fw: fw.exit_dual_level(level=3)),
    "unpack_level": lambda T: _in_level(T, lambda fw: fw.unpack_dual(
        fw.make_dual(T.ones(3), T.ones(3)) * 2, level=2)),
    "unpack_list": lambda T: _in_level(T, lambda fw: fw.unpack_dual([1.0])),
    "dual_of_dual": lambda T: _in_level(T, lambda fw: fw.make_dual(
        fw.make_dual(T.ones(3), T.ones(3)), T.ones(3))),
    "tangent_with_tangent": lambda T: _in_level(T, lambda fw: fw.make_dual(
        T.ones(3), fw.make_dual(T.ones(3), T.ones(3)))),
}


def _in_level(T, f):
    with _fw(T).dual_level():
        return f(_fw(T))


@needs_torch
@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_match_torch(name):
    et, ef = _err(ERRORS[name], torch), _err(ERRORS[name], fc)
    assert et is not None and ef is not None, (et, ef)
    assert et[0] == ef[0], (et, ef)
    assert et[1].split(".")[0][:40] == ef[1].split(".")[0][:40], (et, ef)


def test_levels_and_tangent_lifetime():
    x, t = fc.tensor([1.0, 2.0]), fc.tensor([0.5, -1.0])
    assert ffw.unpack_dual(x) == (x, None)        # outside a level: the tensor itself
    with ffw.dual_level() as lvl:
        assert lvl == 0 and _ops._fw_on
        d = ffw.make_dual(x, t)
        y = d.sin()
        u = ffw.unpack_dual(d)
        assert isinstance(u, ffw.UnpackedDualTensor) and u.tangent is t
        assert u.primal._base is x and ffw.unpack_dual(u.primal).tangent is None
        assert ffw.unpack_dual(y).tangent is ffw.unpack_dual(y).tangent
        np.testing.assert_allclose(ffw.unpack_dual(y).tangent.numpy(),
                                   np.cos([1.0, 2.0]) * t.numpy(), rtol=1e-6)
        assert "tangent=" in repr(y)
    assert not _ops._fw_on
    assert ffw.unpack_dual(y).tangent is None and "tangent" not in repr(y)
    with ffw.dual_level():       # a new level does not see the old tangents
        assert ffw.unpack_dual(y).tangent is None
        assert ffw.unpack_dual(d * 2).tangent is None
        z = ffw.make_dual(x, t) * 1.0
        del ffw._registry[:]     # even a tangent the level forgot to free is stale after it
    with ffw.dual_level():
        assert ffw.unpack_dual(z).tangent is None and ffw._tangent_of(z) is None

    @ffw.dual_level()
    def decorated():
        return ffw.unpack_dual(ffw.make_dual(x, t) * 3).tangent
    np.testing.assert_allclose(decorated().numpy(), 3 * t.numpy())
    assert ffw._current_level == -1


@needs_torch
def test_grad_modes_and_requires_grad():
    def run(T):
        fw = _fw(T)
        res = []
        with fw.dual_level():
            x = T.tensor([0.3, -0.7], dtype=T.float64, requires_grad=True)
            d = fw.make_dual(x, T.tensor([1.0, 2.0], dtype=T.float64))
            res.append(type(d.grad_fn).__name__ if T is fc else d.grad_fn.name())
            y = (d * d).exp()
            res.append(_np(fw.unpack_dual(y).tangent))
            with T.no_grad():
                z = d.tanh()
            res.append((z.requires_grad, _np(fw.unpack_dual(z).tangent)))
            with T.inference_mode():
                w = d.tanh()
                res.append(fw.unpack_dual(w).tangent is None)
                res.append(fw.unpack_dual(fw.make_dual(T.ones(2), T.ones(2))).tangent is None)
            (g,) = T.autograd.grad(y.sum(), x)        # backward through the primal
            res.append(_np(g))
        return res
    rt, rf = run(torch), run(fc)
    assert rt[0] == rf[0] == "ViewBackward0"
    np.testing.assert_allclose(rf[1], rt[1])
    assert rf[2][0] == rt[2][0] is False
    np.testing.assert_allclose(rf[2][1], rt[2][1])
    assert rf[3:5] == rt[3:5] == [True, True]
    np.testing.assert_allclose(rf[5], rt[5])


@needs_torch
def test_inplace_updates_tangents_in_place():
    def run(T):
        fw = _fw(T)
        D = T.float64
        out = []
        with fw.dual_level():
            t = T.ones(3, dtype=D)
            d = fw.make_dual(T.tensor([1.0, 2.0, 3.0], dtype=D), t)
            d.mul_(2)
            out.append(_np(t))                       # the user's tangent was updated
            y = d * 1.0
            ty = fw.unpack_dual(y).tangent
            y.mul_(3)
            out.append((fw.unpack_dual(y).tangent is ty, _np(ty)))
            b = T.zeros(2, 3, dtype=D)
            v = b[0]
            b.add_(fw.make_dual(T.zeros(2, 3, dtype=D), T.ones(2, 3, dtype=D) * 4))
            out.append(_np(fw.unpack_dual(v).tangent))   # derived from the base's
            bb = fw.make_dual(T.zeros(2, 3, dtype=D), T.arange(6.0, dtype=D).reshape(2, 3))
            bb[1].mul_(2)
            out.append(_np(fw.unpack_dual(bb).tangent))
            p = T.zeros(3, dtype=D)
            p[1] = d[0]
            out.append(_np(fw.unpack_dual(p).tangent))
        return out
    rt, rf = run(torch), run(fc)
    np.testing.assert_allclose(rf[0], rt[0])
    assert rf[1][0] is rt[1][0] is True
    for a, b in zip(rf[1:], rt[1:]):
        a, b = (a[1], b[1]) if isinstance(a, tuple) else (a, b)
        np.testing.assert_allclose(a, b)


@needs_torch
def test_views_and_setitem_match_torch():
    def run(T):
        fw, D, out = _fw(T), T.float64, []
        with fw.dual_level():
            z = fw.make_dual(T.ones(3, dtype=D), T.ones(3, dtype=D))
            z[1] = 5.0                                   # a scalar zeroes the region
            out.append(fw.unpack_dual(z).tangent)
            b = T.zeros(2, 3, dtype=D)
            rows = b.unbind(0)                           # views made before the base is dual
            b[0] = fw.make_dual(T.ones(3, dtype=D), T.full((3,), 2.0, dtype=D))
            out += [fw.unpack_dual(rows[0]).tangent, fw.unpack_dual(rows[1]).tangent]
            x = fw.make_dual(T.ones(2, 3, dtype=D), T.arange(6.0, dtype=D).reshape(2, 3))
            x.t()[0, 1] = 7.0
            out.append(fw.unpack_dual(x).tangent)
            c = fw.make_dual(T.tensor([1 + 1j, 2 - 1j]), T.tensor([1j, 1.0 + 0j]))
            c.real.mul_(3)                               # in place on a real view of complex
            out.append(fw.unpack_dual(c).tangent)
            w = T.zeros(3, dtype=D)
            w.copy_(fw.make_dual(T.ones(1, dtype=D), T.full((1,), 3.0, dtype=D)))
            out.append(fw.unpack_dual(w).tangent)
            m = fw.make_dual(T.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=D), T.ones(2, 2, dtype=D))
            out += [fw.unpack_dual(m.max()).tangent, fw.unpack_dual(m.norm(dim=0)).tangent]
            return [_np(o) for o in out]
    for a, b in zip(run(fc), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)


@pytest.mark.parametrize("create_graph", [False, True])
def test_gradients_carry_no_tangent(create_graph):
    """Forward-over-reverse is not supported: gradients have no tangent (never a partial
    one: the create_graph backward records its formulas without tangents)."""
    with ffw.dual_level():
        x = fc.tensor([0.3, 0.8], dtype=fc.float64, requires_grad=True)
        d = ffw.make_dual(x, fc.tensor([1.0, 0.0], dtype=fc.float64))
        y = (d.exp() * d * d).sum()
        (g,) = fc.autograd.grad(y, x, create_graph=create_graph)
        assert ffw.unpack_dual(g).tangent is None
        np.testing.assert_allclose(g.detach().numpy(), np.exp([0.3, 0.8]) * (
            np.array([0.3, 0.8]) ** 2 + 2 * np.array([0.3, 0.8])))


@needs_torch
@pytest.mark.skipif(not hasattr(fc, "view_as_real"), reason="compat has no view_as_real yet")
def test_view_as_real_and_complex_match_torch():
    def run(T):
        fw = _fw(T)
        with fw.dual_level():
            c = fw.make_dual(T.tensor([1 + 2j, 3 - 1j]), T.tensor([0.5j, 1.0 + 1j]))
            r = T.view_as_real(c)
            out = [fw.unpack_dual(r).tangent]
            r[0, 1].mul_(2.0)                 # through the real view into c's tangent
            out.append(fw.unpack_dual(c).tangent)
            q = T.view_as_complex(fw.make_dual(T.ones(2, 2, dtype=T.float64),
                                               T.tensor([[1.0, 2.0], [3.0, 4.0]],
                                                        dtype=T.float64)))
            out.append(fw.unpack_dual(q).tangent)
            return [_np(o) for o in out]
    for a, b in zip(run(fc), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-6)


def test_tangent_requiring_grad_is_used_for_its_value():
    with ffw.dual_level():
        t = fc.tensor([1.0, -1.0], requires_grad=True)
        d = ffw.make_dual(fc.tensor([0.5, 0.25]), t)
        y = d.exp()
        tan = ffw.unpack_dual(y).tangent
        np.testing.assert_allclose(tan.numpy(), np.exp([0.5, 0.25]) * [1.0, -1.0], rtol=1e-6)
        assert not tan.requires_grad


def test_internal_helpers():
    x = fc.tensor([1.0, 2.0, 3.0])
    assert ffw._tangent_of(x) is None
    with pytest.raises(RuntimeError, match="no forward AD level"):
        ffw._set_tangent(x, np.ones(3, np.float32))
    with ffw.dual_level():
        assert ffw._active() and ffw._tangent_of(x) is None
        ffw._set_tangent(x, np.array([1.0, 0.0, 2.0], np.float32))
        np.testing.assert_array_equal(ffw._tangent_of(x), [1.0, 0.0, 2.0])
        np.testing.assert_allclose(ffw._tangent_of(x * x), [2.0, 0.0, 12.0])
        assert ffw._tangent_of(x[1:])[1] == 2.0 and np.shares_memory(ffw._tangent_of(x[1:]),
                                                                    ffw._tangent_of(x))
        with pytest.raises(RuntimeError, match="different size"):
            ffw._set_tangent(x, np.ones(2, np.float32))
        with ffw._suspended():
            assert ffw._tangent_of(x * 2) is None
        assert ffw._tangent_of(x * 2) is not None
    assert not ffw._active() and ffw._tangent_of(x) is None


def test_long_level_does_not_grow_the_registry():
    with ffw.dual_level():
        x = ffw.make_dual(fc.tensor([1.0, 2.0]), fc.tensor([1.0, 1.0]))
        for _ in range(3 * ffw._prune_at):
            x.sin()
        assert len(ffw._registry) <= ffw._prune_at + 1


def test_integer_and_comparison_outputs_have_no_tangent():
    with ffw.dual_level():
        d = ffw.make_dual(fc.tensor([1.5, -2.0]), fc.tensor([1.0, 1.0]))
        for y in (d > 0, d.long(), d.argmax(), d.isnan()):
            assert ffw.unpack_dual(y).tangent is None
        assert ffw.unpack_dual(fc.zeros_like(d)).tangent is None
        assert ffw.unpack_dual(d.detach()).tangent is None
        assert ffw.unpack_dual(d.data).tangent is None
        y = d * 2
        assert ffw.unpack_dual(y.detach_()).tangent is None   # as in PyTorch
