"""``torch.linalg`` and its ``torch.*`` forms in ftrans.compat against PyTorch: values,
shapes, dtypes, result field names, gradients (first and second order), node names and
error types (skipped without PyTorch)."""
from __future__ import annotations

import numpy as np
import pytest

from compat_diff import assert_same, needs_torch

pytestmark = needs_torch

RNG = np.random.default_rng(0)
A = RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)     # well-conditioned batch
B = RNG.standard_normal((2, 4, 3))
R = RNG.standard_normal((5, 3))                         # tall
W = RNG.standard_normal((3, 5))                         # wide
S = RNG.standard_normal((4, 4))
SPD = S @ S.T + 4 * np.eye(4)
C = RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3)) + 3 * np.eye(3)
V3 = RNG.standard_normal((2, 3))


def _grads(T, f, *arrays, create_graph=False):
    """``f`` of leaves made from ``arrays``; the values and the gradients of a fixed
    weighted sum of the (real views of the) results."""
    xs = [T.tensor(a, requires_grad=True) for a in arrays]
    out = f(T, *xs)
    outs = out if isinstance(out, tuple) else (out,)
    loss = 0
    for k, o in enumerate(outs):
        if o.dtype.is_floating_point or o.dtype.is_complex:
            w = T.tensor(np.cos(np.arange(o.numel()) + k).reshape(tuple(o.shape)))
            loss = loss + ((o.abs() if o.dtype.is_complex else o) * w).sum()
    gs = T.autograd.grad(loss, xs, create_graph=create_graph)
    if create_graph:
        gs = T.autograd.grad(sum((g * g).sum() for g in gs), xs)
    return outs, gs


CASES = {
    "solve": (lambda T, a, b: T.linalg.solve(a, b), (A, B)),
    "solve_vec_bcast": (lambda T, a, b: T.linalg.solve(a, b), (A, B[0, :, 0])),
    "solve_left_false": (lambda T, a, b: T.linalg.solve(a, b, left=False),
                         (A, np.swapaxes(B, -1, -2))),
    "inv": (lambda T, a: T.linalg.inv(a), (A,)),
    "det": (lambda T, a: T.linalg.det(a), (A,)),
    "slogdet": (lambda T, a: tuple(T.linalg.slogdet(a)), (A,)),
    "logdet": (lambda T, a: T.logdet(a), (A,)),
    "cholesky_upper": (lambda T, a: T.linalg.cholesky(a + a.mT, upper=True), (SPD,)),
    "eigvalsh": (lambda T, a: T.linalg.eigvalsh(a + a.mT), (S,)),
    "svdvals": (lambda T, a: T.linalg.svdvals(a), (R,)),
    "qr": (lambda T, a: tuple(T.linalg.qr(a)), (R,)),
    "lstsq": (lambda T, a, b: T.linalg.lstsq(a, b).solution, (R, RNG.standard_normal((5, 2)))),
    "pinv": (lambda T, a: T.linalg.pinv(a), (W,)),
    "lu_factor_wide": (lambda T, a: T.linalg.lu_factor(a).LU, (W,)),
    "lu_tall": (lambda T, a: tuple(T.linalg.lu(a))[1:], (R,)),
    "lu_solve_adjoint": (lambda T, a, b: T.linalg.lu_solve(*T.linalg.lu_factor(a), b,
                                                           adjoint=True), (A, B)),
    "solve_triangular": (lambda T, a, b: T.linalg.solve_triangular(a, b, upper=False,
                                                                   left=False),
                         (A, np.swapaxes(B, -1, -2))),
    "vector_norm_3": (lambda T, a: T.linalg.vector_norm(a, 3, dim=(0, 2)), (B,)),
    "matrix_norm_nuc": (lambda T, a: T.linalg.matrix_norm(a, "nuc"), (B,)),
    "matrix_norm_inf": (lambda T, a: T.linalg.matrix_norm(a, float("inf"), keepdim=True), (B,)),
    "norm_fro": (lambda T, a: T.linalg.norm(a), (B,)),
    "cond": (lambda T, a: T.linalg.cond(a), (A,)),
    "cross": (lambda T, a, b: T.linalg.cross(a, b), (V3, V3[::-1].copy())),
    "vecdot": (lambda T, a, b: T.linalg.vecdot(a, b), (B, B[0])),
    "vander": (lambda T, a: T.linalg.vander(a, N=4), (V3,)),
    "multi_dot": (lambda T, a, b, c: T.linalg.multi_dot([a, b, c]), (W, R, V3[0])),
    "matrix_power": (lambda T, a: T.linalg.matrix_power(a, -2), (A,)),
    "matrix_exp": (lambda T, a: T.linalg.matrix_exp(a / 4), (A,)),
    "tensorsolve": (lambda T, a, b: T.linalg.tensorsolve(a, b),
                    ((RNG.standard_normal((6, 6)) + 3 * np.eye(6)).reshape(2, 3, 2, 3),
                     RNG.standard_normal((2, 3)))),
    "householder": (lambda T, a, t: T.linalg.householder_product(a, t),
                    (R, RNG.standard_normal(2))),
    "ormqr": (lambda T, a, t, c: T.ormqr(a, t, c, True, True),
              (R, RNG.standard_normal(3), RNG.standard_normal((5, 2)))),
    "legacy_svd": (lambda T, a: T.svd(a)[1], (R,)),
    "triangular_solve": (lambda T, b, a: tuple(T.triangular_solve(b, a.triu())), (B[0], A[0])),
    "cholesky_solve": (lambda T, b, l: T.cholesky_solve(b, l.tril()), (B[0], A[0])),
    "cholesky_inverse": (lambda T, l: T.cholesky_inverse(l.tril()), (A[0],)),
    "complex_inv": (lambda T, a: T.linalg.inv(a), (C,)),
    "complex_eigvals": (lambda T, a: T.linalg.eigvals(a), (C,)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients(name):
    f, arrays = CASES[name]
    assert_same(lambda T: _grads(T, f, *arrays), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", ["solve", "slogdet", "eigvalsh", "qr", "lu_factor_wide",
                                  "householder"])
def test_second_derivatives(name):
    f, arrays = CASES[name]
    assert_same(lambda T: _grads(T, f, *arrays, create_graph=True), rtol=1e-6, atol=1e-8)


def test_result_types_and_integer_outputs():
    def f(T):
        a = T.tensor(A)
        lu = T.linalg.lu_factor(a)
        ls = T.linalg.lstsq(T.tensor(R), T.tensor(R[:, :1]), driver="gelsd")
        return (T.linalg.slogdet(a).logabsdet, T.linalg.eigh(a).eigenvalues, lu.pivots,
                T.linalg.matrix_rank(T.tensor(R @ W)), ls.rank, ls.residuals,
                ls.singular_values, T.linalg.qr(T.tensor(R), mode="r").Q,
                T.svd(T.tensor(W), some=False).V.shape, T.geqrf(T.tensor(R)).tau,
                T.linalg.inv_ex(a).info, T.linalg.matrix_rank(T.tensor(S + S.T),
                                                             hermitian=True),
                tuple(T.linalg.ldl_factor(T.tensor(S + S.T))),
                T.linalg.ldl_solve(*T.linalg.ldl_factor(T.tensor(C + C.T)),
                                   T.tensor(C[:, :2])))
    assert_same(f)


def test_node_names():
    def f(T):
        a = T.tensor(A, requires_grad=True)
        return [type(t.grad_fn).__name__ for t in
                (T.linalg.solve(a, a), T.linalg.inv(a), T.linalg.det(a), T.linalg.svdvals(a),
                 T.linalg.slogdet(a).logabsdet, T.linalg.lu_factor(a).LU,
                 T.linalg.matrix_exp(a), T.linalg.pinv(a), T.linalg.vector_norm(a),
                 T.linalg.cond(a), T.linalg.matrix_power(a, 3), T.linalg.matrix_power(a, 0),
                 T.linalg.cholesky(a @ a.mT), T.linalg.eigvals(a), T.logdet(a),
                 T.linalg.householder_product(a, a[0, 0, :2]), T.linalg.cross(a[..., :3],
                                                                            a[..., 1:]))]
    assert_same(f)


METHODS = {
    "det": lambda T, a: a.det(), "slogdet": lambda T, a: tuple(a.slogdet()),
    "inverse": lambda T, a: a.inverse(), "logdet": lambda T, a: a.logdet(),
    "cholesky": lambda T, a: (a @ a.mT).cholesky(upper=True),
    "cholesky_inverse": lambda T, a: a.tril().cholesky_inverse(),
    "cholesky_solve": lambda T, a: a[..., :2].cholesky_solve(a.tril()),
    "pinverse": lambda T, a: a.pinverse(), "matrix_power": lambda T, a: a.matrix_power(2),
    "matrix_exp": lambda T, a: (a / 8).matrix_exp(), "qr": lambda T, a: tuple(a.qr()),
    "svd": lambda T, a: a.svd()[1], "lu": lambda T, a: a.lu()[0],
    "lu_solve": lambda T, a: a[..., :2].lu_solve(*T.linalg.lu_factor(a)),
    "triangular_solve": lambda T, a: a[..., :2].triangular_solve(a.triu())[0],
    "cross": lambda T, a: a[..., :3].cross(a[..., 1:], dim=-1),
    "orgqr": lambda T, a: a.orgqr(a[..., 0, :2]),
    "ormqr": lambda T, a: a.ormqr(a[..., 0, :], a[..., :2]),
    "mH": lambda T, a: (a * (1 + 2j)).mH.resolve_conj(), "adjoint": lambda T, a: a.adjoint(),
    "H": lambda T, a: a[0].H,
}


@pytest.mark.parametrize("name", sorted(METHODS))
def test_methods(name):
    assert_same(lambda T: _grads(T, METHODS[name], A), rtol=1e-6, atol=1e-8)


ERRORS = {
    "singular": lambda T: T.linalg.solve(T.zeros(3, 3), T.ones(3)),
    "singular_inv": lambda T: T.linalg.inv(T.zeros(2, 2, dtype=T.float64)),
    "not_pd": lambda T: T.linalg.cholesky(-T.eye(3)),
    "non_square": lambda T: T.linalg.inv(T.zeros(2, 3)),
    "int_input": lambda T: T.linalg.det(T.zeros(3, 3, dtype=T.long)),
    "one_dim": lambda T: T.linalg.eigh(T.zeros(3)),
    "dtype_mismatch": lambda T: T.linalg.solve(T.eye(3), T.ones(3, dtype=T.float64)),
    "cross_len": lambda T: T.linalg.cross(T.ones(2), T.ones(2)),
    "norm_3d_ord": lambda T: T.linalg.norm(T.ones(2, 2, 2), ord=2),
    "qr_mode": lambda T: T.linalg.qr(T.eye(2), mode="bad"),
    "lu_nopivot": lambda T: T.linalg.lu_factor(T.eye(2), pivot=False),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors(name):
    assert_same(ERRORS[name])


def test_ex_variants_info_per_matrix():
    a = np.stack([np.eye(3), np.diag([1., 0., 2.]), np.diag([1., -1., 2.])])

    def f(T):
        x = T.tensor(a)
        s = T.linalg.solve_ex(x, T.tensor(np.ones((3, 2))))
        return (s.info, s.result[0], T.linalg.inv_ex(x).info, T.linalg.inv_ex(x).inverse[2],
                T.linalg.cholesky_ex(x).info, T.linalg.cholesky_ex(x).L[0])
    assert_same(f)


def test_linalg_error_is_runtime_error():
    import ftrans.compat as fc
    assert issubclass(fc.linalg.LinAlgError, RuntimeError)
    with pytest.raises(fc.linalg.LinAlgError):
        fc.linalg.cholesky(-fc.eye(2))
    info = fc.linalg.solve_ex(fc.zeros(2, 2), fc.ones(2)).info
    assert info.dtype == fc.int32 and int(info) != 0


def test_lowrank_shapes():
    def f(T):
        a = T.tensor(R @ W)
        u, s, v = T.svd_lowrank(a, q=2)
        pu, ps, pv = T.pca_lowrank(a, q=2)
        rec = (u * s) @ v.mT
        return u.shape, s, v.shape, pu.shape, pv.shape, float((rec - a).abs().max()) < 1e9
    assert_same(lambda T: f(T)[:1] + f(T)[2:], rtol=1e-6)


VMAPPED = {
    "det": lambda T, x, y: T.linalg.det(x),
    "solve": lambda T, x, y: T.linalg.solve(x, y),
    "eigvalsh": lambda T, x, y: T.linalg.eigvalsh(x + x.mT),
    "lu_solve": lambda T, x, y: T.linalg.lu_solve(*T.linalg.lu_factor(x), y, adjoint=True),
    "lstsq": lambda T, x, y: T.linalg.lstsq(x, y).solution,
    "lu_unpack": lambda T, x, y: T.lu_unpack(*T.linalg.lu_factor(x))[0],
}


@pytest.mark.parametrize("name", sorted(VMAPPED))
def test_func_vmap_and_grad(name):
    """compat.func (ftrans's transforms, traced) against torch.func."""
    f = VMAPPED[name]

    def run(T):
        x, y = T.tensor(A), T.tensor(B)
        out = T.func.vmap(lambda u, v: f(T, u, v))(x, y)
        g = T.func.grad(lambda u, v: f(T, u, v).sum())(x[0], y[0])
        return out, g
    assert_same(run, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("kw", [{"atol": 0.4}, {"atol": 0.4, "rtol": 0.2},
                                {"atol": [0.2, 0.6]}, {"rtol": [0.05, 0.5]}, {}])
def test_pinv_cutoff_per_matrix_of_a_batch(kw):
    """The cutoff ``max(atol, rtol * s_max)`` is per matrix: two matrices of different
    scales in one batch keep different singular values (the batch's largest ``s_max``
    used for all gave a wrong pseudo-inverse for the smaller one)."""
    A = np.stack([np.diag([10.0, 1.0, 0.3]), np.diag([1.0, 0.5, 0.3])])

    def f(T):
        k = {n: (T.tensor(v, dtype=T.float64) if isinstance(v, list) else v)
             for n, v in kw.items()}
        x = T.tensor(A, requires_grad=True)
        y = T.linalg.pinv(x, **k)
        g, = T.autograd.grad(y.sum(), x)
        return y, g
    assert_same(f, rtol=1e-10, atol=1e-12)
