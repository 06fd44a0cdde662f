"""The checks of :func:`~ftrans.compat.autograd.gradcheck.gradcheck`: slow mode (whole
Jacobians), fast mode (one random projection), and the further checks (batched gradients,
``backward`` multiplying by the output gradient, undefined gradients)."""
from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

import numpy as np

from .. import autograd   # autograd.grad is looked up at each call (the package defines it)
from .. import _tensor as T
from .._factories import _gen
from . import forward_ad as fwAD
from ._gradcheck_fn import (
    GradcheckError, _FAILED_BATCHED_GRAD_MSG, _Fn, _FAST_FAIL_SLOW_OK_MSG, _FAST_SEED,
    _UNDEFINED_NOTE, _allclose, _diff_outputs, _is_fc, _is_tensor, _real_np, _show, _tuple
)

__all__: list[str] = []


# ------------------------------------------------------------------------ slow mode
def _slow_gradcheck(fn: _Fn, eps: float, rtol: float, atol: float, check_grad_dtypes: bool,
                    nondet_tol: float, fw_part: str | None = None) -> bool:
    """Slow mode; ``fw_part`` ("real"/"imag"): the forward-mode check of that part of
    the inputs instead of the backward-mode check."""
    if not fn.outputs:
        for i in range(len(fn.diff)):
            for J in fn.numerical(i, eps, fw_part):
                if np.count_nonzero(J) > 0:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        return True
    numerical = [fn.numerical_per_output(i, eps, fw_part) for i in range(len(fn.diff))]
    if fw_part is not None:
        forward = fn.forward(fw_part, check_grad_dtypes)
        for i in range(len(fn.outputs)):
            m = fn.fc_to_out.index(i)   # the output's position among the float/complex ones
            for j, per_out in enumerate(forward):
                a, n = per_out[m], numerical[j][i]
                if not _allclose(a, n, rtol, atol):
                    raise GradcheckError(fn.mismatch(a, n, i, j, fw_part))
        return True
    for i, o in enumerate(fn.outputs):
        analytical = fn.analytical(o, nondet_tol, check_grad_dtypes)
        for j, a in enumerate(analytical):
            n = numerical[j][i]
            if not _allclose(a, n, rtol, atol):
                raise GradcheckError(fn.mismatch(a, n, i, j))
    return True


# ------------------------------------------------------------------------ fast mode
def _unit(rng: Any, n: int, dt: Any) -> Any:
    v = rng.random(n).astype(dt)
    return v / np.linalg.norm(v)


def _fast_forward(fn: _Fn, fw_part: str | None, eps: float, rtol: float, atol: float,
                  check_grad_dtypes: bool) -> bool:
    """Fast mode, forward mode: for each input requiring grad and each float/complex
    output, the vectors ``J (unit * u)`` numerically (one directional central difference)
    and analytically (one dual pass) must be allclose with ``atol * sum(u)``."""
    rng = np.random.default_rng(_FAST_SEED)
    all_u = [_unit(rng, x._data.size, _real_np(x._data.dtype)) for x in fn.diff]
    numerical: list[Any] = []
    for x, u in zip(fn.diff, all_u):
        d = u.reshape(x._data.shape) * (eps * fn.fw_unit(x, fw_part))
        numerical.append(fn._central(x, x._data - d, x._data + d, eps, None))
    analytical = fn.forward(fw_part, check_grad_dtypes, all_u)
    for i, u in enumerate(all_u):
        for j, n in enumerate(numerical[i]):
            a = analytical[i][j]
            if not _allclose(a, n, rtol, atol * float(u.sum())):
                raise GradcheckError(fn.mismatch(a, n, j, i, fw_part) + _slow_mode_error(
                    fn, i, j, rtol, atol, eps, fw_part))
    return True


def _fast_gradcheck(fn: _Fn, eps: float, rtol: float, atol: float, check_grad_dtypes: bool,
                    nondet_tol: float, fw_part: str | None = None) -> bool:
    """Fast mode; ``fw_part``: the forward-mode check (:func:`_fast_forward`)."""
    if fw_part is not None:
        return _fast_forward(fn, fw_part, eps, rtol, atol, check_grad_dtypes)
    rng = np.random.default_rng(_FAST_SEED)
    all_u: list[Any] = []
    for x in fn.diff:
        dt = _real_np(x._data.dtype)
        ur = _unit(rng, x._data.size, dt)
        all_u.append((ur, _unit(rng, x._data.size, dt)) if x.is_complex() else ur)
    all_v = [_unit(rng, o._data.size, _real_np(o._data.dtype)) for o in fn.outputs]

    # numerical: J u by one directional central difference (two for a complex input)
    numerical: list[Any] = []
    for x, u in zip(fn.diff, all_u):
        shape = x._data.shape
        delta = (tuple(p.reshape(shape) * eps for p in u) if isinstance(u, tuple)
                 else u.reshape(shape) * eps)
        Ju = fn._directional(x, delta, eps)
        if not fn.outputs:
            for d in Ju:
                if d.size and np.abs(d).max() > nondet_tol:
                    raise GradcheckError("Numerical gradient for function expected to be zero")
        per_out = [None] * len(fn.outputs)
        for m, d in enumerate(Ju):
            k = fn.fc_to_out[m]
            if k is not None:
                per_out[k] = (all_v[k] * d).sum()
        numerical.append(per_out)

    # analytical: v^T J by one backward, then the dot product with u
    analytical: list[Any] = []
    for o, v in zip(fn.outputs, all_v):
        scalars: list[Any] = []
        for vJ, u in zip(fn.analytical(o, nondet_tol, check_grad_dtypes, v=v), all_u):
            vJ = vJ[:, 0]
            if vJ.dtype.kind == "c":
                scalars.append(vJ.real.dot(u[0]) + 1j * vJ.imag.dot(u[1]))
            else:
                scalars.append(vJ.dot(u))
        analytical.append(scalars)

    for i, u in enumerate(all_u):
        su = float(u[0].sum() + u[1].sum()) if isinstance(u, tuple) else float(u.sum())
        for j, v in enumerate(all_v):
            a, n = analytical[j][i], numerical[i][j]
            if not _allclose(a, n, rtol, atol * su * float(v.sum())):
                raise GradcheckError(fn.mismatch(a, n, j, i) + _slow_mode_error(
                    fn, i, j, rtol, atol, eps))
    return True


def _slow_mode_error(fn: _Fn, in_idx: int, out_idx: int, rtol: float, atol: float, eps: float,
                     fw_part: str | None = None) -> str:
    """The slow-mode Jacobians of one (input, output) pair, for a fast-mode failure
    (forward mode with ``fw_part``: ``out_idx`` counts the float/complex outputs)."""
    if fw_part is None:
        n = fn.numerical_per_output(in_idx, eps)[out_idx]
        a = fn.analytical(fn.outputs[out_idx], float("inf"), False)[in_idx]
    else:
        n = fn.numerical(in_idx, eps, fw_part)[out_idx]
        a = fn.forward(fw_part, False)[in_idx][out_idx]
    max_diff = np.abs(n - a).max() if n.size else np.float64(0)
    msg = ("\nThe above quantities relating the numerical and analytical jacobians are "
           "computed \nin fast mode. See: https://github.com/pytorch/pytorch/issues/53876 for "
           "more background \nabout fast mode. Below, we recompute numerical and analytical "
           "jacobians in slow mode:\n\n"
           f"Numerical:\n {_show(n)}\nAnalytical:\n{_show(a)}\n\n"
           f"The max per-element difference (slow mode) is: {_show(max_diff)}.\n")
    if _allclose(a, n, rtol, atol):
        msg += _FAST_FAIL_SLOW_OK_MSG
    return msg


# ----------------------------------------------------------------- the other checks
def _check_inputs(inputs: Sequence[Any]) -> None:
    """PyTorch's input checks: warn on non-double inputs requiring grad, refuse inputs
    with a zero stride, require at least one input requiring grad."""
    any_rg = False
    for idx, inp in enumerate(inputs):
        if not (_is_tensor(inp) and inp.requires_grad):
            continue
        if inp._data.dtype not in (np.float64, np.complex128):
            warnings.warn(
                f"Input #{idx} requires gradient and is not a double precision floating point "
                "or complex. This check will likely fail if all the inputs are not of double "
                "precision floating point or complex. ", UserWarning, stacklevel=4)
        d = inp._data
        if not all(st > 0 or sz <= 1 for st, sz in zip(d.strides, d.shape)):
            raise RuntimeError(
                f"The {idx}th input has a dimension with stride 0. gradcheck only supports "
                "inputs that are non-overlapping to be able to compute the numerical gradients "
                "correctly. You should call .contiguous on the input before passing it to "
                "gradcheck.")
        any_rg = True
    if not any_rg:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, "
                         "but none of them have requires_grad=True.")


def _zeros_for(tensors: Sequence[T.Tensor]) -> list[T.Tensor]:
    return [T._make(np.zeros_like(t._data)) for t in tensors]


def _test_batched_grad(fn: _Fn, o: T.Tensor, output_idx: int) -> bool:
    """``autograd.grad(..., is_grads_batched=True)`` on two random grad_outputs must
    equal two separate backward passes (``torch.allclose`` defaults)."""
    diff = fn.diff

    def filled(res: Sequence[Any], shape_of: Callable[[T.Tensor], tuple[int, ...]]
               ) -> list[Any]:
        return [np.zeros(shape_of(x), x._data.dtype) if g is None else g._data
                for g, x in zip(res, diff)]

    rng = _gen(None)
    shape = o._data.shape
    gos: list[Any] = []
    for _ in range(2):
        g = rng.standard_normal(shape)
        if o.is_complex():  # PyTorch's complex randn: variance 1/2 per part
            g = (g + 1j * rng.standard_normal(shape)) / np.sqrt(2)
        gos.append(g.astype(o._data.dtype))
    per = [filled(autograd.grad(o, diff, T._make(g), retain_graph=True, allow_unused=True),
                  lambda x: x._data.shape) for g in gos]
    expected = [np.stack(col) for col in zip(*per)]
    try:
        res = autograd.grad(o, diff, T._make(np.stack(gos)), retain_graph=True, allow_unused=True,
                   is_grads_batched=True)
    except RuntimeError as ex:
        raise GradcheckError(f"While computing batched gradients, got: {ex}\n\n"
                             f"{_FAILED_BATCHED_GRAD_MSG}") from ex
    result = filled(res, lambda x: (2,) + x._data.shape)
    for input_idx, (r, e) in enumerate(zip(result, expected)):
        if r.shape == e.shape and _allclose(r, e, 1e-05, 1e-08):
            continue
        raise GradcheckError(
            f"For output {output_idx} and input {input_idx}:\n\n{_FAILED_BATCHED_GRAD_MSG}\n\n"
            f"Got:\n{_show(r)}\n\nExpected:\n{_show(e)}")
    return True


def _test_backward_mul_by_grad_output(fn: _Fn, masked: bool | None) -> bool:
    """Zero grad_outputs must give zero input gradients of the inputs' dtype and size."""
    if not fn.outputs:
        return True
    gis = autograd.grad(fn.outputs, fn.diff, _zeros_for(fn.outputs), allow_unused=True)
    for gi, di in zip(gis, fn.diff):
        if gi is None:
            continue
        g = gi._data
        zero = _allclose(g, np.zeros_like(g), 1e-05, 1e-08) if masked else not np.any(g != 0)
        if not zero:
            raise GradcheckError("backward not multiplied by grad_output")
        if g.dtype != di._data.dtype:
            raise GradcheckError("grad is incorrect type")
        if g.shape != di._data.shape:
            raise GradcheckError("grad is incorrect size")
    return True


def _test_undefined_backward_mode(fn: _Fn) -> bool:
    """Backward must cope with undefined output gradients.  The engine materializes an
    undefined gradient: "all undefined" runs a backward with zero grad_outputs, and, for
    several differentiable outputs, "output k undefined" back-propagates from the other
    outputs only (output k then gets no gradient, as with PyTorch's ``UndefinedGrad``)."""

    def warn_bc_breaking() -> None:
        warnings.warn(
            "Backwards compatibility: New undefined gradient support checking feature is "
            "enabled by default, but it may break existing callers of this function. If this "
            "is true for you, you can call this function with \"check_undefined_grad=False\" "
            "to disable the feature", UserWarning, stacklevel=6)

    def check(outs: Sequence[T.Tensor]) -> bool:
        if not outs:
            return True
        try:
            gis = autograd.grad(outs, fn.diff, _zeros_for(outs), allow_unused=True)
        except RuntimeError as e:
            warn_bc_breaking()
            raise GradcheckError("Expected backward function to handle undefined output "
                                 "grads. " + _UNDEFINED_NOTE) from e
        for gi in gis:
            if gi is not None and np.any(gi._data != 0):
                warn_bc_breaking()
                raise GradcheckError(
                    "Expected all input grads to be undefined or zero when all output grads "
                    "are undefined or zero. " + _UNDEFINED_NOTE)
        return True

    outs = _diff_outputs(fn.func(*fn.inputs))
    ok = check(outs)
    if len(outs) > 1:
        for k in range(len(fn.outputs)):
            outs = _diff_outputs(fn.func(*fn.inputs))
            ok = check([o for i, o in enumerate(outs) if i != k]) and ok
    return ok


def _test_undefined_forward_mode(fn: _Fn, fw_part: str | None) -> bool:
    """Forward mode must treat an undefined tangent as zero (PyTorch's check): with every
    input requiring grad seeded with its fast-mode ``u`` (``1j u`` for the imaginary part
    of a complex input), giving input ``k`` an explicit zero tangent or no tangent at all
    must give allclose output tangents wherever both exist."""
    rng = np.random.default_rng(_FAST_SEED)
    pos = [p for p, a in enumerate(fn.inputs) if _is_tensor(a) and a.requires_grad]

    def tangents(duals: Sequence[Any]) -> list[Any]:
        return [fwAD.unpack_dual(o).tangent for o in _tuple(fn.func(*duals)) if _is_fc(o)]

    with fwAD.dual_level():
        duals = list(fn.inputs)
        for p, x in zip(pos, fn.diff):
            u = _unit(rng, x._data.size, _real_np(x._data.dtype)).reshape(x._data.shape)
            seed = (u * fn.fw_unit(x, fw_part)).astype(x._data.dtype)
            duals[p] = fwAD.make_dual(x.detach(), T._make(seed))
        for p, x in zip(pos, fn.diff):
            seeded = duals[p]
            duals[p] = fwAD.make_dual(x.detach(), T._make(np.zeros_like(x._data)))
            res1 = tangents(duals)
            duals[p] = x.detach()
            res2 = tangents(duals)
            duals[p] = seeded
            for index_o, (r1, r2) in enumerate(zip(res1, res2)):
                if r1 is None or r2 is None or _allclose(r1._data, r2._data, 1e-05, 1e-08):
                    continue
                # PyTorch raises it with these separate arguments (its message is their tuple)
                raise GradcheckError("Mismatch in tangent values for output with index: ",
                                     index_o, " when input: ", x,
                                     " has an undefined tangent value. ", " Got: ", r1,
                                     " but expected: ", r2)
    return True


def _no_batched_forward_grad() -> NoReturn:
    raise NotImplementedError(
        "gradcheck: check_batched_forward_grad=True compares forward-mode AD run on a batch "
        "of tangents (PyTorch: vmap over forward AD) with a loop over them, but "
        "ftrans.compat.autograd.forward_ad cannot batch tangents (a tangent is a plain "
        "array of its primal's shape), so there is no batched forward-mode computation to "
        "check; pass check_batched_forward_grad=False (check_forward_ad=True still checks "
        "the forward-mode Jacobians)")


def _no_fwd_over_rev() -> NoReturn:
    raise NotImplementedError(
        "gradgradcheck: check_fwd_over_rev=True needs forward-over-reverse AD (forward mode "
        "through the gradients that autograd.grad computes), which "
        "ftrans.compat.autograd.forward_ad does not support: gradients computed by backward "
        "carry no tangent; pass check_fwd_over_rev=False (check_rev_over_rev=True checks "
        "the second derivatives with reverse-over-reverse)")
