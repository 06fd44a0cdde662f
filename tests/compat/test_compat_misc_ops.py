"""Differential tests of compat's construction, shape and fused-product operations
(ftrans/compat/_misc_ops*.py) against PyTorch: values, dtypes, shapes, gradients and
exception types."""
from __future__ import annotations

import numpy as np
import pytest

from compat_diff import assert_same, needs_torch

pytestmark = needs_torch

_RNG = np.random.default_rng(0)


def _arr(*shape, dtype=np.float64):
    a = _RNG.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        a = a + 1j * _RNG.standard_normal(shape)
    return a.astype(dtype)


def vg(op, *arrays, grad=True):
    """A snippet: ``op(T, *tensors)``, its value and the gradients of ``sum(out * w)``
    with respect to every floating input."""
    ws = {}

    def snippet(T):
        ts = [T.tensor(a, requires_grad=grad and a.dtype.kind in "fc") for a in arrays]
        out = op(T, *ts)
        outs = list(out) if isinstance(out, (tuple, list)) else [out]
        res = [out]
        if grad and any(t.requires_grad for t in ts):
            loss = 0
            for k, o in enumerate(outs):
                if o.requires_grad:
                    if k not in ws:
                        ws[k] = _arr(*o.shape, dtype=o.detach().numpy().dtype)
                    loss = loss + (o * T.tensor(ws[k])).sum().real if o.is_complex() else \
                        loss + (o * T.tensor(ws[k])).sum()
            rg = [t for t in ts if t.requires_grad]
            gs = T.autograd.grad(loss, rg, allow_unused=True)
            res.append([g.resolve_conj() if g is not None else T.zeros_like(t)
                        for g, t in zip(gs, rg)])
        return res
    return snippet


A34, A45, A35, A3, A4 = _arr(3, 4), _arr(4, 5), _arr(3, 5), _arr(3), _arr(4)
B234, B245, B235 = _arr(2, 3, 4), _arr(2, 4, 5), _arr(2, 3, 5)


@pytest.mark.parametrize("case", [
    lambda T, i, a, b: T.addmm(i, a, b),
    lambda T, i, a, b: T.addmm(i, a, b, beta=0.5, alpha=-2.0),
    lambda T, i, a, b: i.addmm(a, b, beta=2),
    lambda T, i, a, b: T.addmm(i[0], a, b),
])
def test_addmm(case):
    assert_same(vg(case, A35, A34, A45))


def test_addmm_beta0_ignores_nan():
    i = np.full((3, 5), np.nan)
    assert_same(vg(lambda T, i, a, b: T.addmm(i, a, b, beta=0), i, A34, A45))
    assert_same(vg(lambda T, i, a, b: T.baddbmm(i, a, b, beta=0, alpha=3), np.full(
        (2, 3, 5), np.inf), B234, B245))


def test_fused_products():
    assert_same(vg(lambda T, i, m, v: T.addmv(i, m, v, beta=0.3, alpha=2), A3, A34, A4))
    assert_same(vg(lambda T, i, a, b: T.addr(i, a, b, alpha=0.5), A34, A3, A4))
    assert_same(vg(lambda T, i, a, b: T.baddbmm(i, a, b, alpha=0.5), B235, B234, B245))
    assert_same(vg(lambda T, i, a, b: T.addbmm(i, a, b, beta=2), A35, B234, B245))
    assert_same(vg(lambda T, i, a, b: T.addcmul(i, a, b, value=0.5), A34, A4, A34))
    assert_same(vg(lambda T, i, a, b: T.addcdiv(i, a, b, value=-2), A34, A34, A4 + 5))
    assert_same(vg(lambda T, a, b: T.vdot(a, b), _arr(4, dtype=complex), _arr(4, dtype=complex)))
    ints = np.arange(12).reshape(3, 4)
    assert_same(lambda T: T.addmm(T.tensor(ints[:, :3]), T.tensor(ints), T.tensor(ints.T[:, :3]),
                                  beta=1.7, alpha=2.6))


def test_fused_products_errors():
    assert_same(lambda T: T.addmm(T.zeros(2, 2), T.zeros(2, 3), T.zeros(2, 2)))
    assert_same(lambda T: T.addcdiv(T.zeros(2), T.tensor([1, 2]), T.tensor([1, 2])))
    assert_same(lambda T: T.vdot(T.zeros(2), T.zeros(2, dtype=T.float32)))
    assert_same(lambda T: T.lerp(T.zeros(2), T.zeros(2, dtype=T.float32), 0.5))


def test_inplace_forms():
    def snip(T):
        x = T.tensor(A35.copy())
        x.addmm_(T.tensor(A34), T.tensor(A45), alpha=2)
        y = T.tensor(A34.copy())
        y.lerp_(T.tensor(A34 * 2), 0.75).addcmul_(T.tensor(A4), T.tensor(A4))
        return x, y
    assert_same(snip)


def test_lerp():
    assert_same(vg(lambda T, a, b: T.lerp(a, b, 0.3), A34, A4))
    assert_same(vg(lambda T, a, b: T.lerp(a, b, 0.8), A34, A4))
    assert_same(vg(lambda T, a, b, w: T.lerp(a, b, w), A34, A4, _arr(3, 1)))


def test_products_and_distances():
    assert_same(vg(lambda T, a, b: T.kron(a, b), A34, _arr(2, 3)))
    assert_same(vg(lambda T, a, b: T.kron(a, b), A3, _arr(2, 3)))
    assert_same(vg(lambda T, a, b: T.tensordot(a, b, 1), A34, A45))
    assert_same(vg(lambda T, a, b: T.tensordot(a, b, ([1, 0], [0, 1])), B234, _arr(3, 2, 5)))
    for p in (0.5, 1, 2, 3, float("inf")):
        assert_same(vg(lambda T, a, b: T.cdist(a, b, p=p), A34, _arr(5, 4)))
    assert_same(vg(lambda T, a, b: T.cdist(a, b, compute_mode="use_mm_for_euclid_dist"),
                   B234, _arr(2, 5, 4)))
    for p in (0, 1, 2, 3.5, float("inf")):   # (torch's p=0 backward raises: values only)
        assert_same(vg(lambda T, a, b: T.dist(a, b, p), A34, A4, grad=p != 0))
    assert_same(vg(lambda T, a: T.renorm(a, 2, 0, 1.0), A34))
    assert_same(vg(lambda T, a: a.renorm(1, 1, 0.5), A34))


def test_shapes():
    assert_same(vg(lambda T, a, b: T.atleast_1d([a, b]), np.array(2.0), A3))
    assert_same(vg(lambda T, a, b: T.atleast_2d((a, b)), np.array(2.0), A3))
    assert_same(vg(lambda T, a, b: T.atleast_3d(a, b), A3, A34))
    assert_same(vg(lambda T, a: T.atleast_3d(a), A34))
    assert_same(vg(lambda T, a, b: T.block_diag(a, b, a[0]), A34, A3))
    assert_same(lambda T: T.broadcast_shapes((1, 3), (2, 1), 3))
    assert_same(lambda T: T.broadcast_shapes((2, 3), (4,)))
    assert_same(vg(lambda T, a, b: T.cartesian_prod(a, b), A3, A4))
    assert_same(vg(lambda T, a: T.combinations(a, 2), A4))
    assert_same(vg(lambda T, a: T.combinations(a, 3, with_replacement=True), A3))
    assert_same(vg(lambda T, a, b: T.column_stack([a, b]), A3, A34))
    assert_same(vg(lambda T, a, b: T.dstack([a, b]), A34, A34))
    assert_same(vg(lambda T, a: T.diag_embed(a, 1, 0, 2), A34))
    assert_same(vg(lambda T, a: T.diag_embed(a, -2), A34))
    assert_same(vg(lambda T, a: T.diagflat(a, -1), A34))
    assert_same(vg(lambda T, a: T.tensor_split(a, 3, 1), A45))
    assert_same(vg(lambda T, a: T.tensor_split(a, [1, 3, 7], 1), A45))
    assert_same(vg(lambda T, a: T.tensor_split(a, T.tensor([1, 2]), 0), A45))
    assert_same(vg(lambda T, a: T.hsplit(a, 2), A34))
    assert_same(vg(lambda T, a: T.vsplit(a, [1]), A34))
    assert_same(vg(lambda T, a: T.dsplit(a, 2), B234))
    assert_same(lambda T: T.hsplit(T.zeros(3, 5), 2))
    assert_same(vg(lambda T, a: (T.fliplr(a), T.flipud(a)), A34))
    assert_same(lambda T: T.fliplr(T.zeros(3)))


def test_meshgrid_roll_rot90_tile():
    for ix in ("ij", "xy"):
        assert_same(vg(lambda T, a, b, c: T.meshgrid(a, b, c, indexing=ix), A3, A4, _arr(2)))
        assert_same(vg(lambda T, a, b: T.meshgrid([a, b], indexing=ix), A3, np.array(1.0)))
    assert_same(vg(lambda T, a: T.roll(a, 2), A34))
    assert_same(vg(lambda T, a: T.roll(a, (1, -2), (0, 1)), A34))
    assert_same(vg(lambda T, a: a.roll(-1, 1), A34))
    assert_same(lambda T: T.roll(T.zeros(3), (1, 2), (0,)))
    for k in (-1, 0, 1, 2, 3, 5):
        assert_same(vg(lambda T, a: T.rot90(a, k, (1, 2)), B234))
    assert_same(lambda T: T.rot90(T.zeros(3, 3), 1, (0, 0)))
    assert_same(vg(lambda T, a: T.tile(a, (2,)), A34))
    assert_same(vg(lambda T, a: T.tile(a, (2, 1, 3)), A34))
    assert_same(vg(lambda T, a: a.ravel(), A34))


def test_indices():
    assert_same(lambda T: T.tril_indices(4, 3, -1))
    assert_same(lambda T: T.triu_indices(3, 5, 1, dtype=T.int32))
    assert_same(lambda T: T.unravel_index(T.tensor([0, 5, 11, -1]), (3, 4)))
    assert_same(lambda T: T.unravel_index(T.tensor([12, -13, 25]), (3, 4)))
    assert_same(lambda T: T.unravel_index(T.tensor(5), (3, 4)))
    assert_same(lambda T: T.unravel_index(T.tensor([1.0]), (3, 4)))


def test_integration_and_gradient():
    x = np.sort(_arr(4))
    assert_same(vg(lambda T, y: T.trapezoid(y), A34))
    assert_same(vg(lambda T, y: T.trapz(y, dx=0.5, dim=0), A34))
    assert_same(vg(lambda T, y, x: T.trapezoid(y, x), A34, x))
    assert_same(vg(lambda T, y, x: T.cumulative_trapezoid(y, x), A34, x))
    assert_same(vg(lambda T, y: T.cumulative_trapezoid(y, dim=0), A34))
    assert_same(lambda T: T.trapezoid(T.tensor([1, 4, 9])))
    assert_same(vg(lambda T, y: T.gradient(y), A34))
    assert_same(vg(lambda T, y: T.gradient(y, spacing=2.0, dim=1, edge_order=2), A34))
    assert_same(vg(lambda T, y: T.gradient(y, spacing=[1.5, 0.5]), A34))
    assert_same(vg(lambda T, y, x: T.gradient(y, spacing=(x,), dim=1), A34, x))
    assert_same(lambda T: T.gradient(T.zeros(3, 1), dim=1))
    assert_same(lambda T: T.gradient(T.zeros(3, 3), dim=(1, 1)))


def test_factories_and_fill():
    assert_same(lambda T: T.scalar_tensor(3))
    assert_same(lambda T: T.scalar_tensor(2.5, dtype=T.float32))
    assert_same(lambda T: tuple(T.empty_strided((2, 3), (1, 2)).shape))
    assert_same(lambda T: T.empty_strided((2, 3), (1, 2), dtype=T.int32).dtype)
    assert_same(lambda T: tuple(T.empty_permuted((2, 3, 4), (2, 0, 1)).shape))
    assert_same(lambda T: T.ones(2, dtype=T.float32).new_empty_strided((3, 1), (1, 1)).dtype)
    assert_same(vg(lambda T, a: T.fill(a, 2.5), A34))
    assert_same(vg(lambda T, a, v: T.fill(a, v), A34, np.array(1.5)))
    assert_same(lambda T: T.fill(T.zeros(2, dtype=T.int64), 3))


def test_split_family():
    assert_same(vg(lambda T, a: T.split_with_sizes(a, [1, 3, 1], 1), A35))
    assert_same(vg(lambda T, a: a.split_with_sizes([2, 1]), A34))
    assert_same(lambda T: T.split_with_sizes(T.zeros(3), [1, 1]))
    assert_same(vg(lambda T, a: T.unsafe_chunk(a, 2, 1), A35))
    assert_same(vg(lambda T, a: a.unsafe_split(2), A35))


def test_methods():
    assert_same(vg(lambda T, a: a.sum_to_size(1, 4), A34))
    assert_same(vg(lambda T, a: a.sum_to_size((3, 1)), A34))
    assert_same(vg(lambda T, a: a.sum_to_size(4), A34))
    assert_same(lambda T: T.zeros(3, 4).sum_to_size(2, 4))
    assert_same(vg(lambda T, a: tuple(v.resolve_conj() for v in (a.H, a.mH, a.mT, a.T)),
                   _arr(3, 4, dtype=complex)))
    assert_same(vg(lambda T, a: a.mH.resolve_conj(), _arr(2, 3, 4, dtype=complex)))
    assert_same(lambda T: T.zeros(3).H)
    assert_same(vg(lambda T, a: a.__rdiv__(2.0), A34 + 5))
    assert_same(lambda T: T.tensor([1, 2]).__rdiv__(3))
    assert_same(lambda T: T.tensor([1.5, -2.7, 300.0]).char())

    def resize(T):
        x = T.arange(6.0)
        x.resize_(2, 2)
        y = T.arange(4)
        y.resize_as_(T.zeros(2, 2))
        return x, y
    assert_same(resize)
    assert_same(lambda T: T.zeros(2, requires_grad=True).resize_(3))


def test_refusals():
    import ftrans.compat as fc
    with pytest.raises(TypeError, match="bfloat16"):
        fc.zeros(2).bfloat16()
    with pytest.raises(TypeError, match="complex32"):
        fc.zeros(2).chalf()
    with pytest.raises(RuntimeError, match="sparse"):
        fc.zeros(2).to_sparse()
    with pytest.raises(NotImplementedError, match="uint64"):
        fc.hash_tensor(fc.zeros(2))


def test_finfo_iinfo():
    def info(T):
        out = []
        for dt in (T.float16, T.float32, T.float64, T.complex64):
            f = T.finfo(dt)
            out.append((f.bits, f.eps, f.max, f.min, f.tiny, f.smallest_normal, f.resolution,
                        f.dtype))
        f = T.finfo()
        out.append((f.bits, f.eps, f.dtype))
        for dt in (T.uint8, T.int8, T.int16, T.int32, T.int64):
            i = T.iinfo(dt)
            out.append((i.bits, i.max, i.min, i.dtype))
        return out
    assert_same(info)
    assert_same(lambda T: T.finfo(T.int32))
    assert_same(lambda T: T.iinfo(T.float32))


@pytest.mark.parametrize("name,args", [
    ("addmm_", (A34, A45)), ("addmv_", (A34[:, :3].T.copy(), A3)), ("addr_", (A3, A4)),
    ("baddbmm_", (B234, B245)), ("addbmm_", (B234, B245)), ("addcmul_", (A34, A4)),
    ("addcdiv_", (A34, A4 + 5)), ("lerp_", (A34, 0.25)), ("renorm_", (2, 0, 0.5)),
])
def test_inplace_methods_on_non_leaf(name, args):
    base = {"addmm_": A35, "addmv_": A4, "addr_": A34, "baddbmm_": B235, "addbmm_": A35}.get(
        name, A34)

    def snippet(T):
        x = T.tensor(base, requires_grad=True)
        ts = [T.tensor(a, requires_grad=True) if isinstance(a, np.ndarray) else a for a in args]
        y = x * 1.0
        r = getattr(y, name)(*ts)
        assert r is y
        y.sum().backward()
        return y, x.grad, [t.grad for t in ts if hasattr(t, "grad")]
    assert_same(snippet)


def test_error_types_and_integer_coefficients():
    assert_same(lambda T: T.addcmul(T.tensor([1, 2]), T.tensor([1, 2]), T.tensor([3, 4]),
                                    value=2.5))
    assert_same(lambda T: T.addr(T.zeros(2, 2, dtype=T.bool), T.tensor([True, False]),
                                 T.tensor([True, True]), alpha=2))
    assert_same(lambda T: T.meshgrid(T.zeros(2), indexing="ab"))
    assert_same(lambda T: T.tril_indices(3, 3, dtype=T.float32))
    assert_same(lambda T: T.broadcast_shapes((2, -1)))
    assert_same(lambda T: T.finfo(None))
    assert_same(lambda T: T.iinfo(T.bool))
    assert_same(lambda T: T.cdist(T.tensor([[1, 2]]), T.tensor([[1, 2]])))
    assert_same(lambda T: T.tensordot(T.zeros(2, 3), T.zeros(4, 5), 1))
    assert_same(lambda T: T.gradient(T.zeros(5, 5), spacing=[1.0, 2.0, 3.0]))
    assert_same(lambda T: T.lerp(T.tensor([1, 2]), T.tensor([3, 4]), 0.5))


def test_out_variants():
    def snippet(T):
        o1, o2, o3 = T.empty(0), T.empty(3, 5), T.empty(2, dtype=T.int64)
        T.addmm(T.tensor(A35), T.tensor(A34), T.tensor(A45), out=o1)
        T.kron(T.tensor(A3), T.tensor(A4), out=o2)
        T.lerp(T.tensor(A3), T.tensor(A3 * 2), 0.5, out=T.empty(3))
        return o1, o2, T.column_stack([T.tensor([1, 2]), T.tensor([3, 4])], out=o3)
    assert_same(snippet)
    assert_same(lambda T: T.addcmul(T.zeros(2, requires_grad=True), T.ones(2), T.ones(2),
                                    out=T.empty(2)))


@pytest.mark.parametrize("p", [0.5, 1.0, 2.0, 3.0, float("inf")])
def test_distance_gradients_at_coinciding_points(p):
    a = _arr(30, 3)
    a[3, 1] = a[1, 1]
    zero_rows = A34.copy()
    zero_rows[1] = 0
    assert_same(vg(lambda T, x, y: T.cdist(x, y, p=p), a, a[:5].copy()))
    assert_same(vg(lambda T, x, y: T.cdist(x, y, p=p, compute_mode="donot_use_mm_for_euclid_dist"),
                   a[:6].copy(), a[:4].copy()))
    assert_same(vg(lambda T, x, y: T.dist(x, y, p), a, a.copy()))
    assert_same(vg(lambda T, x: T.renorm(x, p, 0, 0.5), zero_rows))
