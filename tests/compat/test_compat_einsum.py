"""``torch.einsum`` in ``ftrans.compat`` (ftrans/compat/_einsum.py).

* ``CASES``: a table of equations (matrix products, batch matmul, outer, trace, diagonal,
  transpose, sums, bilinear, ellipsis with broadcasting and size-1 dims, repeated labels,
  spaces and upper case, sublist and list forms, three and four operands, complex128,
  float32).  Differential against PyTorch 2.13: values and dtypes, ``grad_fn`` set,
  gradients of a real loss and (float64/complex128) second-order gradients through
  ``create_graph``.  Independently of PyTorch: values against ``numpy.einsum``, gradients
  against central finite differences, a double backward against finite differences of
  the gradient, forward-mode AD against finite differences of the output, and
  ``is_grads_batched`` against a loop of single backwards.
* ``ERRORS``: bad calls and equations with the exception type and message PyTorch 2.13
  raises, written out literally: both PyTorch (when installed) and compat must raise
  exactly that.
* ``DTYPES``: mixed, integer and bool operands: the result dtype PyTorch 2.13 gives, or
  the exception it raises (a contraction of two dtypes raises, a broadcast product
  promotes), again literal, checked on both.  Three-operand cases are compared with
  ``torch.backends.opt_einsum`` disabled: compat contracts left to right, as torch does
  without opt_einsum.
* 150 seeded random equations (1-4 operands, repeated labels, size-1 dimensions,
  ellipses, implicit and explicit outputs) against PyTorch: values and gradients.
"""
from __future__ import annotations

import numpy as np
import pytest

import ftrans.compat as fc
from ftrans.compat.autograd import forward_ad as fwAD

from compat_diff import needs_torch, torch

_R = np.random.default_rng(2024)


def _eq(equation):
    return lambda T, *ops: T.einsum(equation, *ops)


def _case(name, call, shapes, dtype="float64", np_eq=None):
    """``np_eq``: the numpy.einsum equation with the same meaning (None: numpy has none)."""
    if np_eq is None and isinstance(call, str):
        np_eq = call
    fn = _eq(call) if isinstance(call, str) else call
    return pytest.param(fn, shapes, dtype, np_eq, id=name)


_NO_NP = ""    # np_eq for cases numpy.einsum cannot express (an ellipsis summed away)

CASES = [
    _case("mm", "ij,jk->ik", [(3, 4), (4, 5)]),
    _case("mm_implicit", "ij,jk", [(3, 4), (4, 5)]),
    _case("mm_out_transposed", "ij,jk->ki", [(3, 4), (4, 5)]),
    _case("mv", "ij,j->i", [(3, 4), (4,)]),
    _case("dot", "i,i->", [(5,), (5,)]),
    _case("bmm", "bij,bjk->bik", [(3, 2, 4), (3, 4, 5)]),
    _case("bmm_batch_last", "ijb,jkb->kib", [(2, 4, 3), (4, 5, 3)]),
    _case("outer", "i,j->ij", [(3,), (4,)]),
    _case("trace", "ii", [(4, 4)]),
    _case("trace_explicit", "ii->", [(4, 4)]),
    _case("diagonal", "ii->i", [(4, 4)]),
    _case("batch_diagonal", "...ii->...i", [(2, 3, 3)]),
    _case("triple_diagonal", "iii->i", [(3, 3, 3)]),
    _case("transpose", "ij->ji", [(2, 3)]),
    _case("identity", "ij->ij", [(2, 3)]),
    _case("sum_all", "ij->", [(2, 3)]),
    _case("sum_axis", "ijk->ik", [(2, 3, 4)]),
    _case("bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)]),
    _case("ellipsis_bmm", "...ij,...jk->...ik", [(2, 3, 2, 4), (2, 3, 4, 5)]),
    _case("ellipsis_broadcast", "...ij,...jk->...ik", [(2, 1, 2, 4), (3, 4, 5)]),
    _case("ellipsis_implicit", "...ij,...jk", [(2, 1, 2, 4), (3, 4, 5)]),
    _case("ellipsis_middle", "a...b,b...->...a", [(2, 3, 4), (4, 3)]),
    _case("ellipsis_summed", "a...b,b...->a", [(2, 3, 4), (4, 3)], np_eq=_NO_NP),
    _case("ellipsis_empty", "...ij,jk->...ik", [(2, 3), (3, 4)]),
    _case("size1_contracted", "ij,jk->ik", [(2, 1), (3, 4)]),
    _case("size1_output", "ij,ij->ij", [(3, 1), (1, 4)]),
    _case("size1_everywhere", "ij,jk->ik", [(2, 1), (1, 4)]),
    _case("spaces_upper_case", " iJ , Jk -> k i ", [(2, 3), (3, 4)]),
    _case("upper_before_lower", "bA,cb", [(2, 3), (4, 2)]),
    _case("repeated_in_two_ops", "iij,jkk->ik", [(3, 3, 2), (2, 4, 4)]),
    _case("label_in_one_op", "ijk,jl->il", [(2, 3, 4), (3, 5)]),
    _case("scalar_operand", ",i->i", [(), (3,)]),
    _case("three_ops", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    _case("three_ops_shared", "ij,ij,ij->i", [(2, 3), (2, 3), (2, 3)]),
    _case("four_ops", "ab,bc,cd,de->ae", [(2, 3), (3, 4), (4, 2), (2, 3)]),
    _case("four_ops_batch", "bi,bij,bj,b->b", [(3, 2), (3, 2, 4), (3, 4), (3,)]),
    _case("sublist", lambda T, a, b: T.einsum(a, [0, 1], b, [1, 2], [0, 2]),
          [(3, 4), (4, 5)], np_eq="AB,BC->AC"),
    _case("sublist_implicit", lambda T, a, b: T.einsum(a, [27, 26], b, [26, 28]),
          [(3, 4), (4, 5)], np_eq="ba,ac"),
    _case("sublist_ellipsis", lambda T, a, b: T.einsum(a, [..., 0, 1], b, [..., 1, 2],
                                                       [..., 2, 0]),
          [(2, 3, 4), (2, 4, 5)], np_eq="...AB,...BC->...CA"),
    _case("list_form", lambda T, a, b: T.einsum("ij,jk->ik", [a, b]),
          [(3, 4), (4, 5)], np_eq="ij,jk->ik"),
    _case("tuple_form", lambda T, a, b, c: T.einsum("ij,jk,kl", (a, b, c)),
          [(2, 3), (3, 4), (4, 2)], np_eq="ij,jk,kl"),
    _case("complex_mm", "ij,jk->ik", [(3, 4), (4, 5)], "complex128"),
    _case("complex_bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)], "complex128"),
    _case("complex_trace", "ii", [(3, 3)], "complex128"),
    _case("complex_outer", "i,j->ji", [(3,), (2,)], "complex128"),
    _case("complex_ellipsis", "...ij,...jk->...ik", [(2, 1, 2, 4), (3, 4, 5)], "complex128"),
    _case("float32_mm", "ij,jk->ik", [(3, 4), (4, 5)], "float32"),
    _case("float32_bilinear", "bn,anm,bm->ba", [(2, 3), (4, 3, 5), (2, 5)], "float32"),
]
_DIFF = [p for p in CASES if p.values[2] != "float32"]   # float64/complex128: FD-checkable


def _arrays(shapes, dtype, seed=0):
    rng = np.random.default_rng(seed)
    arrs = [rng.standard_normal(s) for s in shapes]
    if dtype == "complex128":
        arrs = [a + 1j * rng.standard_normal(a.shape) for a in arrs]
    return [a.astype(dtype) for a in arrs]


def _leaves(T, arrays, dtype):
    return [T.tensor(a, dtype=getattr(T, dtype), requires_grad=True) for a in arrays]


def _weights(shape):
    return np.random.default_rng(5).standard_normal(shape)


def _loss(T, out):
    """A real loss whose gradient has no structural zeros (weights break symmetry; for a
    complex result the real part, imaginary part and modulus all count)."""
    w = T.tensor(_weights(tuple(out.shape)), dtype=out.real.dtype if out.dtype.is_complex
                 else out.dtype)
    if out.dtype.is_complex:
        return (out.real * w).sum() + 3 * out.imag.sum() + 0.1 * (out.abs() ** 2).sum()
    return (out * w).sum() + 0.1 * (out * out).sum()


def _np(t):
    t = t.detach()
    if hasattr(t, "resolve_conj"):
        t = t.resolve_conj()
    return np.array(t.numpy(), copy=True)


def _sq_norm(g):
    return (g.abs() ** 2).sum() if g.dtype.is_complex else (g * g).sum()


def _run(T, fn, shapes, dtype, create_graph):
    """(dtype, shape, values, grad_fn set, grads of the loss, second-order grads)."""
    ins = _leaves(T, _arrays(shapes, dtype), dtype)
    out = fn(T, *ins)
    gs = T.autograd.grad(_loss(T, out), ins, create_graph=create_graph)
    g2 = None
    if create_graph:
        l2 = sum(_sq_norm(g) for g in gs)
        g2 = [_np(g) for g in T.autograd.grad(l2, ins)]
    return (str(out.dtype), tuple(out.shape), _np(out), out.grad_fn is not None,
            [(str(g.dtype), _np(g)) for g in gs], g2)


def _tol(dtype):
    return 2e-4 if dtype == "float32" else 1e-9


def _close(a, b, dtype):
    tol = _tol(dtype)
    scale = max(1.0, float(np.max(np.abs(a), initial=0.0)))
    return a.shape == b.shape and np.allclose(a, b, rtol=tol, atol=tol * scale)


# ============================================================ differential against torch
@needs_torch
@pytest.mark.parametrize("fn,shapes,dtype,np_eq", CASES)
def test_matches_torch(fn, shapes, dtype, np_eq):
    cg = dtype != "float32"
    rt = _run(torch, fn, shapes, dtype, cg)
    rf = _run(fc, fn, shapes, dtype, cg)
    assert rf[:2] == rt[:2], (rt[:2], rf[:2])
    assert _close(rt[2], rf[2], dtype), (rt[2], rf[2])
    assert rt[3] and rf[3], "grad_fn must be set on a result of operands requiring grad"
    for (dt_t, gt), (dt_f, gf) in zip(rt[4], rf[4]):
        assert dt_t == dt_f
        assert _close(gt, gf, dtype), (gt, gf)
    if cg:
        for gt, gf in zip(rt[5], rf[5]):
            assert _close(gt, gf, dtype), (gt, gf)


# ============================================================ independent of torch
@pytest.mark.parametrize("fn,shapes,dtype,np_eq", CASES)
def test_values_match_numpy(fn, shapes, dtype, np_eq):
    arrs = _arrays(shapes, dtype)
    out = fn(fc, *[fc.tensor(a) for a in arrs])
    assert str(out.dtype) == f"torch.{dtype}"
    if np_eq == _NO_NP:
        pytest.skip("numpy.einsum has no equivalent (it refuses to sum an ellipsis away); "
                    "covered against torch and by test_summed_ellipsis")
    assert _close(np.einsum(np_eq, *arrs), _np(out), dtype)


def test_summed_ellipsis():
    """torch (unlike numpy) sums ellipsis dimensions an explicit output leaves out."""
    a, b = _arrays([(2, 3, 4), (4, 3)], "float64")
    out = fc.einsum("a...b,b...->a", fc.tensor(a), fc.tensor(b))
    assert np.allclose(_np(out), np.einsum("a...b,b...->...a", a, b).sum(0))
    out = fc.einsum("...ij,jk->ik", fc.tensor(np.ones((5, 2, 3))), fc.tensor(b.T))
    assert np.allclose(_np(out), 5 * np.ones((2, 3)) @ b.T)


def _loss_of_arrays(fn, dtype):
    def f(arrays):
        with fc.no_grad():
            return float(_loss(fc, fn(fc, *[fc.tensor(a) for a in arrays])).item())
    return f


def _fd_gradient(f, arrays, k, h=1e-6):
    """Central differences of the real ``f`` w.r.t. ``arrays[k]``: ``dL/dx`` for a real
    array, ``dL/dx + i dL/dy`` for a complex one (PyTorch's convention, spec
    autograd-mechanics.md, "Autograd for Complex Numbers")."""
    a0 = arrays[k]
    g = np.zeros(a0.shape, a0.dtype)
    for idx in np.ndindex(a0.shape):
        for step in ((1.0, 1j) if np.iscomplexobj(a0) else (1.0,)):
            vals = []
            for sign in (1, -1):
                a = a0.copy()
                a[idx] += sign * step * h
                vals.append(f([a if i == k else v for i, v in enumerate(arrays)]))
            g[idx] += step * (vals[0] - vals[1]) / (2 * h)
    return g


@pytest.mark.parametrize("fn,shapes,dtype,np_eq", _DIFF)
def test_grad_matches_finite_differences(fn, shapes, dtype, np_eq):
    arrs = _arrays(shapes, dtype)
    ins = _leaves(fc, arrs, dtype)
    out = fn(fc, *ins)
    assert out.grad_fn is not None
    gs = fc.autograd.grad(_loss(fc, out), ins)
    f = _loss_of_arrays(fn, dtype)
    for k, g in enumerate(gs):
        assert np.allclose(_np(g), _fd_gradient(f, arrs, k), rtol=1e-6, atol=1e-6)


def _dot_real(g, v):
    """Re <g, v> of compat tensors (the real inner product of the components)."""
    return (g.real * v.real).sum() + (g.imag * v.imag).sum() if g.dtype.is_complex \
        else (g * v).sum()


@pytest.mark.parametrize("name", ["bilinear", "ellipsis_broadcast", "repeated_in_two_ops",
                                  "four_ops", "complex_bilinear", "complex_trace"])
def test_double_backward_matches_finite_differences(name):
    """h(x) = sum_k Re <grad_k L(x), v_k>; grad h through create_graph=True must equal
    central differences of h computed from first-order gradients."""
    fn, shapes, dtype, _ = next(p.values for p in CASES if p.id == name)
    arrs = _arrays(shapes, dtype)
    vs = _arrays(shapes, dtype, seed=3)

    def first_order(arrays, create_graph):
        ins = _leaves(fc, arrays, dtype)
        gs = fc.autograd.grad(_loss(fc, fn(fc, *ins)), ins, create_graph=create_graph)
        return ins, gs

    ins, gs = first_order(arrs, True)
    assert all(g.requires_grad for g in gs)
    h = sum(_dot_real(g, fc.tensor(v)) for g, v in zip(gs, vs))
    hg = fc.autograd.grad(h, ins)

    def h_of(arrays):
        _, g1 = first_order(arrays, False)
        return float(sum(np.real(np.vdot(v, _np(g))) for g, v in zip(g1, vs)))

    for k, g in enumerate(hg):
        assert np.allclose(_np(g), _fd_gradient(h_of, arrs, k), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("fn,shapes,dtype,np_eq", _DIFF)
def test_forward_ad_matches_finite_differences(fn, shapes, dtype, np_eq):
    arrs = _arrays(shapes, dtype)
    tans = _arrays(shapes, dtype, seed=9)
    with fwAD.dual_level():
        duals = [fwAD.make_dual(fc.tensor(a), fc.tensor(t)) for a, t in zip(arrs, tans)]
        jvp = fwAD.unpack_dual(fn(fc, *duals)).tangent
    h = 1e-6
    with fc.no_grad():
        # np.asarray: a 0-d sum is a NumPy scalar, which fc.tensor makes float32/complex64
        # (torch.tensor keeps float64; a factories issue outside einsum)
        plus = fn(fc, *[fc.tensor(np.asarray(a + h * t)) for a, t in zip(arrs, tans)])
        minus = fn(fc, *[fc.tensor(np.asarray(a - h * t)) for a, t in zip(arrs, tans)])
    assert np.allclose(_np(jvp), (_np(plus) - _np(minus)) / (2 * h), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["mm", "bmm", "bilinear", "ellipsis_broadcast", "diagonal",
                                  "repeated_in_two_ops", "complex_mm"])
def test_grads_batched_matches_loop(name):
    fn, shapes, dtype, _ = next(p.values for p in CASES if p.id == name)
    ins = _leaves(fc, _arrays(shapes, dtype), dtype)
    out = fn(fc, *ins)
    cts = np.stack(_arrays([tuple(out.shape)] * 3, dtype, seed=4))
    batched = fc.autograd.grad(out, ins, fc.tensor(cts), retain_graph=True,
                               is_grads_batched=True)
    for b in range(3):
        single = fc.autograd.grad(out, ins, fc.tensor(cts[b]), retain_graph=True)
        for gb, gs in zip(batched, single):
            assert np.allclose(_np(gb)[b], _np(gs), rtol=1e-12, atol=1e-12)


def test_mm_is_one_matmul_node():
    """'ij,jk->ik' records a single matrix-product node (no broadcast product)."""
    a, b = _leaves(fc, _arrays([(3, 4), (4, 5)], "float64"), "float64")
    out = fc.einsum("ij,jk->ik", a, b)
    assert type(out.grad_fn).__name__ == "MmBackward0"
    assert [n[0].__class__.__name__ for n in out.grad_fn.next_functions] == \
        ["AccumulateGrad", "AccumulateGrad"]


def test_no_tensor_method():
    """PyTorch has no Tensor.einsum; neither does compat."""
    assert not hasattr(fc.Tensor, "einsum")
    if torch is not None:
        assert not hasattr(torch.Tensor, "einsum")


# ============================================================ errors (literal torch 2.13)
_A, _B, _S = (2, 3), (3, 4), (3, 3)


def _err(name, call, shapes, exc, msg):
    return pytest.param(call, shapes, exc, msg, id=name)


def _t(T, s, dtype="float32"):
    return T.ones(s, dtype=getattr(T, dtype))


ERRORS = [
    _err("no_args", lambda T: T.einsum(), [], ValueError,
         "einsum(): must specify the equation string and at least one operand, or at least "
         "one operand and its subscripts list"),
    _err("equation_only", lambda T: T.einsum("ij"), [], ValueError,
         "einsum(): must specify the equation string and at least one operand, or at least "
         "one operand and its subscripts list"),
    _err("empty_list", lambda T: T.einsum("ij", []), [], ValueError,
         "einsum(): must specify the equation string and at least one operand, or at least "
         "one operand and its subscripts list"),
    _err("fewer_operands", lambda T, a: T.einsum("ij,jk->ik", a), [_A], RuntimeError,
         "einsum(): fewer operands were provided than specified in the equation"),
    _err("more_operands", lambda T, a, b: T.einsum("ij->ij", a, b), [_A, _B], RuntimeError,
         "einsum(): more operands were provided than specified in the equation"),
    _err("more_subscripts", lambda T, a: T.einsum("ijk->ijk", a), [_A], RuntimeError,
         "einsum(): the number of subscripts in the equation (3) does not match the number "
         "of dimensions (2) for operand 0 and no ellipsis was given"),
    _err("fewer_subscripts", lambda T, a, b: T.einsum("i,i", a, b), [(3,), (3, 1)],
         RuntimeError, "einsum(): the number of subscripts in the equation (1) does not "
         "match the number of dimensions (2) for operand 1 and no ellipsis was given"),
    _err("subscripts_beyond_ellipsis", lambda T, a: T.einsum("ij...->", a), [(2,)],
         RuntimeError, "einsum(): the number of subscripts in the equation (2) is more than "
         "the number of dimensions (1) for operand 0"),
    _err("size_mismatch", lambda T, a: T.einsum("ij,jk->ik", a, a), [_A], RuntimeError,
         "einsum(): subscript j has size 2 for operand 1 which does not broadcast with "
         "previously seen size 3"),
    _err("ellipsis_size_mismatch",
         lambda T, a, b: T.einsum("...ij,...jk->...ik", a, b), [(2, 2, 3), (3, 3, 4)],
         RuntimeError, "einsum(): dimension 0 covered by ellipsis in operand 1has size 3 "
         "which does not broadcast with previously seen ellipsis with size 2 for the "
         "respective dimension"),
    _err("diagonal_size_mismatch", lambda T, a: T.einsum("ii->i", a), [_A], RuntimeError,
         "einsum(): subscript i is repeated for operand 0 but the sizes don't match, 3 != 2"),
    _err("diagonal_size1", lambda T, a: T.einsum("iij->ij", a), [(3, 1, 2)], RuntimeError,
         "einsum(): subscript i is repeated for operand 0 but the sizes don't match, "
         "1 != 3"),
    _err("invalid_char", lambda T, a: T.einsum("i$->i", a), [_A], RuntimeError,
         "einsum(): invalid subscript given at index 1 in the equation string, subscripts "
         "must be in [a-zA-Z]"),
    _err("digit", lambda T, a: T.einsum("i1", a), [_A], RuntimeError,
         "einsum(): invalid subscript given at index 1 in the equation string, subscripts "
         "must be in [a-zA-Z]"),
    _err("tab", lambda T, a: T.einsum("ij\t", a), [_A], RuntimeError,
         "einsum(): invalid subscript given at index 2 in the equation string, subscripts "
         "must be in [a-zA-Z]"),
    _err("half_arrow", lambda T, a: T.einsum("ij>j", a), [_A], RuntimeError,
         "einsum(): invalid subscript given at index 2 in the equation string, subscripts "
         "must be in [a-zA-Z]"),
    _err("two_arrows", lambda T, a: T.einsum("ij->i->j", a), [_A], RuntimeError,
         "einsum(): invalid subscript given at index 5 in the equation string, subscripts "
         "must be in [a-zA-Z]"),
    _err("output_not_in_inputs", lambda T, a: T.einsum("ij->iz", a), [_A], RuntimeError,
         "einsum(): output subscript z does not appear in the equation for any input "
         "operand"),
    _err("output_repeated", lambda T, a: T.einsum("ij->ii", a), [_S], RuntimeError,
         "einsum(): output subscript i appears more than once in the output"),
    _err("output_repeated_diag", lambda T, a: T.einsum("ii->ii", a), [_S], RuntimeError,
         "einsum(): output subscript i appears more than once in the output"),
    _err("lone_dot", lambda T, a: T.einsum("i.j->ij", a), [_A], RuntimeError,
         "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
    _err("spaced_dots", lambda T, a: T.einsum(". . .ij->ij", a), [_A], RuntimeError,
         "einsum(): found '.' for operand 0 that is not part of any ellipsis"),
    _err("two_ellipses", lambda T, a: T.einsum("...i...->i", a), [_A], RuntimeError,
         "einsum(): found '.' for operand 0 for which an ellipsis was already found"),
    _err("output_two_dots", lambda T, a: T.einsum("ij->..", a), [_A], RuntimeError,
         "einsum(): found '.' for output that is not part of any ellipsis (...)"),
    _err("output_two_ellipses", lambda T, a: T.einsum("...->......", a), [_A], RuntimeError,
         "einsum(): found '.' for output but an ellipsis (...) was already found"),
    _err("sublist_range", lambda T, a: T.einsum(a, [0, 52]), [_A], ValueError,
         "einsum(): subscript in subscript list is not within the valid range [0, 52)"),
    _err("sublist_negative", lambda T, a: T.einsum(a, [0, -1]), [_A], ValueError,
         "einsum(): subscript in subscript list is not within the valid range [0, 52)"),
    _err("equation_not_str", lambda T, a: T.einsum(None, a), [_A], TypeError,
         "einsum(): argument 'equation' (position 1) must be str, not NoneType"),
    _err("operand_not_tensor", lambda T, a: T.einsum("ij,jk->ik", a, 3), [_A], TypeError,
         "expected Tensor as element 1 in argument 1, but got int"),
    _err("operand_ndarray", lambda T: T.einsum("ij", np.ones((2, 3))), [], TypeError,
         "expected Tensor as element 0 in argument 1, but got numpy.ndarray"),
    _err("list_then_more", lambda T, a, b: T.einsum("ij,jk", [a], [b]), [_A, _B], TypeError,
         "expected Tensor as element 0 in argument 1, but got list"),
    _err("sublist_extra_list", lambda T, a, b: T.einsum(a, [0, 1], b, [1, 2], [0, 2], [3]),
         [_A, _B], TypeError, "expected Tensor as element 2 in argument 1, but got list"),
]


def _check_raises(T, call, shapes, exc, msg):
    with pytest.raises(exc) as info:
        call(T, *[_t(T, s) for s in shapes])
    assert str(info.value) == msg


@pytest.mark.parametrize("call,shapes,exc,msg", ERRORS)
def test_errors(call, shapes, exc, msg):
    _check_raises(fc, call, shapes, exc, msg)


@needs_torch
@pytest.mark.parametrize("call,shapes,exc,msg", ERRORS)
def test_errors_are_torchs(call, shapes, exc, msg):
    _check_raises(torch, call, shapes, exc, msg)


# ============================================================ dtypes (literal torch 2.13)
def _dt(name, equation, specs, expected):
    """``expected``: the result dtype name, or (exception type, message)."""
    return pytest.param(equation, specs, expected, id=name)


_F, _D, _C, _L, _I, _BOOL = "float32", "float64", "complex128", "int64", "int32", "bool"
_MISMATCH = "expected scalar type {} but found {}"

DTYPES = [
    _dt("mm_float_double", "ij,jk->ik", [(_A, _F), (_B, _D)],
        (RuntimeError, _MISMATCH.format("Float", "Double"))),
    _dt("mm_double_float", "ij,jk->ik", [(_A, _D), (_B, _F)],
        (RuntimeError, _MISMATCH.format("Double", "Float"))),
    _dt("mm_float_complex", "ij,jk->ik", [(_A, _F), (_B, _C)],
        (RuntimeError, _MISMATCH.format("Float", "ComplexDouble"))),
    _dt("mm_long_float", "ij,jk->ik", [(_A, _L), (_B, _F)],
        (RuntimeError, _MISMATCH.format("Long", "Float"))),
    _dt("elementwise_contracted", "ij,ij->", [(_A, _F), (_A, _D)],
        (RuntimeError, _MISMATCH.format("Float", "Double"))),
    _dt("mm_bool", "ij,jk->ik", [(_A, _BOOL), (_B, _BOOL)],
        (NotImplementedError, "\"bmm\" not implemented for 'Bool'")),
    _dt("mul_promotes", "i,i->i", [((2,), _F), ((2,), _D)], _D),
    _dt("outer_promotes", "i,j->ij", [((2,), _L), ((3,), _F)], _F),
    _dt("outer_complex", "i,j->ij", [((2,), _F), ((3,), _C)], _C),
    _dt("outer_bool", "i,j->ij", [((2,), _BOOL), ((3,), _BOOL)], _BOOL),
    _dt("size1_sum_first", "i,i->", [((2,), _F), ((1,), _D)], _D),
    _dt("size1_sum_first_mm", "ij,jk->ik", [((2, 1), _F), (_B, _D)], _D),
    _dt("mm_long", "ij,jk->ik", [(_A, _L), (_B, _L)], _L),
    _dt("mm_int", "ij,jk->ik", [(_A, _I), (_B, _I)], _I),
    _dt("sum_int_to_long", "ij->", [(_A, _I)], _L),
    _dt("sum_bool_to_long", "ii", [(_S, _BOOL)], _L),
    _dt("diagonal_bool", "ii->i", [(_S, _BOOL)], _BOOL),
    _dt("permute_int", "ij->ji", [(_A, _I)], _I),
    _dt("summed_label_makes_long", "ijk,jl->il", [((2, 3, 4), _I), ((3, 5), _I)],
        (RuntimeError, _MISMATCH.format("Long", "Int"))),
    _dt("sum_then_mul_long", "ij,k->i", [(_A, _I), ((4,), _I)], _L),
    _dt("empty_contraction", "ij,jk->ik", [((2, 0), _F), ((0, 4), _D)], _D),
    _dt("empty_contraction_second_dtype", "ij,jk->ik", [((2, 0), _D), ((0, 4), _F)], _F),
    _dt("empty_rows", "ij,jk->ik", [((0, 3), _F), (_B, _D)], _D),
    _dt("empty_bool", "ij,jk->ik", [((2, 0), _BOOL), ((0, 4), _BOOL)], _BOOL),
    _dt("three_left_to_right", "ij,jk,kl->il", [(_A, _F), (_B, _F), ((4, 5), _D)],
        (RuntimeError, _MISMATCH.format("Float", "Double"))),
    _dt("three_mul_promotes", "i,i,i->i", [((2,), _F), ((2,), _F), ((2,), _D)], _D),
    _dt("three_mixed_outer", "i,j,k->ijk", [((2,), _F), ((3,), _D), ((4,), _L)], _D),
]


def _dtype_outcome(T, equation, specs):
    ops = [T.tensor(np.arange(1, 1 + int(np.prod(s))).reshape(s) % 3, dtype=getattr(T, d))
           for s, d in specs]
    try:
        r = T.einsum(equation, *ops)
    except Exception as e:  # noqa: BLE001 - the exception is the outcome
        return type(e), str(e)
    return str(r.dtype)[6:], _np(r)


@pytest.mark.parametrize("equation,specs,expected", DTYPES)
def test_dtypes(equation, specs, expected):
    out = _dtype_outcome(fc, equation, specs)
    if isinstance(expected, tuple):
        assert out == expected
    else:
        assert out[0] == expected
        arrays = [(np.arange(1, 1 + int(np.prod(s))).reshape(s) % 3).astype(d).astype(complex)
                  for s, d in specs]
        assert np.array_equal(out[1], np.einsum(equation, *arrays).astype(out[1].dtype))


@needs_torch
@pytest.mark.parametrize("equation,specs,expected", DTYPES)
def test_dtypes_are_torchs(equation, specs, expected, monkeypatch):
    monkeypatch.setattr(torch.backends.opt_einsum, "enabled", False)
    out = _dtype_outcome(torch, equation, specs)
    rf = _dtype_outcome(fc, equation, specs)
    if isinstance(expected, tuple):
        assert out == expected
    else:
        assert out[0] == expected
        assert rf[0] == out[0] and np.array_equal(rf[1], out[1])


# ============================================================ random equations vs torch
def _random_equation(rng):
    """A random valid equation and operand shapes: 1-4 operands, repeated labels, size-1
    dimensions, ellipses of different lengths, implicit or explicit (permuted, partial)
    output."""
    letters = "abcdAz"
    size = {c: int(rng.integers(1, 4)) for c in letters}
    ell = [int(rng.integers(1, 4)) for _ in range(int(rng.integers(0, 3)))]
    use_ell = rng.random() < 0.3
    terms, shapes = [], []
    for _ in range(int(rng.integers(1, 5))):
        labels = list(rng.choice(list(letters), int(rng.integers(0, 4))))
        shape = [size[c] if rng.random() < 0.85 else 1 for c in labels]
        shape = [shape[labels.index(c)] for c in labels]     # repeated labels: equal sizes
        term = "".join(labels)
        if use_ell and rng.random() < 0.7:
            p, n = int(rng.integers(0, len(labels) + 1)), int(rng.integers(0, len(ell) + 1))
            term = term[:p] + "..." + term[p:]
            shape = shape[:p] + [e if rng.random() < 0.8 else 1 for e in ell[len(ell) - n:]] \
                + shape[p:]
        terms.append(term)
        shapes.append(tuple(shape))
    equation = ",".join(terms)
    if rng.random() < 0.6:
        used = sorted(set("".join(terms)) - {"."})
        out = "".join(rng.permutation(used)[:int(rng.integers(0, len(used) + 1))])
        if use_ell and rng.random() < 0.7:
            p = int(rng.integers(0, len(out) + 1))
            out = out[:p] + "..." + out[p:]
        equation += "->" + out
    return equation, shapes


@needs_torch
def test_random_equations_match_torch(monkeypatch):
    monkeypatch.setattr(torch.backends.opt_einsum, "enabled", False)
    rng = np.random.default_rng(123)
    for _ in range(150):
        equation, shapes = _random_equation(rng)
        dtype = "complex128" if rng.random() < 0.3 else "float64"
        fn = _eq(equation)
        rt = _run(torch, fn, shapes, dtype, False)
        rf = _run(fc, fn, shapes, dtype, False)
        assert rf[:2] == rt[:2], equation
        assert _close(rt[2], rf[2], dtype), equation
        for (dt_t, gt), (dt_f, gf) in zip(rt[4], rf[4]):
            assert dt_t == dt_f and _close(gt, gf, dtype), equation
