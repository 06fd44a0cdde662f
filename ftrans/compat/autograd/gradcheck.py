"""``gradcheck`` / ``gradgradcheck``: PyTorch's gradient checks on the compat graph.

The method is the one of the gradcheck notes (``spec/gradcheck-mechanics.md``,
PyTorch's "Gradcheck mechanics"); messages, defaults and the order of the checks follow
``torch.autograd.gradcheck`` of PyTorch 2.13.

*Slow mode* rebuilds every Jacobian twice and compares them elementwise with
``allclose(analytical, numerical, rtol, atol)``:

- numerically, column by column: each element of each input requiring grad is perturbed
  by ``-eps`` and ``+eps`` and the central difference ``(f(x+eps) - f(x-eps)) / (2 eps)``
  is one column; a complex element is also perturbed by ``+-i eps`` and the column is
  ``df/da + i df/db`` = ``2 * CW`` (conjugate Wirtinger derivative);
- analytically, row by row: one ``autograd.grad(output, inputs, e_j, retain_graph=True)``
  per output element (``e_j`` one-hot), which also returns ``2 * CW`` for complex inputs.

Jacobians are stored as PyTorch stores them, one ``(input.numel(), output.numel())``
matrix per (input, output) pair: the dtype of the input for complex inputs, else that of
the output (numerical) or of the input (analytical).

*Fast mode* compares the scalars ``v^T J u`` instead (``u`` random unit vector per input,
``v`` random unit vector per output), or ``real(v^T 2CW) ur + i imag(v^T 2CW) ui`` for a
complex input (numerically ``v^T (J_a ur + i J_b ui)`` by two directional central
differences); ``atol`` is scaled by ``sum(u) * sum(v)``.  A failure recomputes the
slow-mode Jacobians of the failing pair for the message.

A complex output is checked as two real functions, its imaginary part first and then
its real part: numerically by taking ``imag``/``real`` of the finite differences,
analytically by back-propagating the grad_output ``1j * e`` or ``e`` (the chain rule of
``imag``/``real``).  The numerical perturbation swaps the input's array for a perturbed
copy while ``func`` runs (the input's own array is never written).

*Forward mode* (``check_forward_ad=True``; the notes' "forward mode AD computes
``J_f u``", with ``compat.autograd.forward_ad``) checks the Jacobian w.r.t. the real and
the imaginary part of each complex input separately, imaginary part first (PyTorch
splits ``z = a + ib`` into real inputs ``a`` and ``b``): the numerical column of element
``k`` is the central difference for the perturbation ``+-eps`` (real part, or a real
input) or ``+-i eps`` (imaginary part), the analytical one the output tangents of a
dual pass with tangent ``e_k`` or ``1j e_k`` (other inputs: zero tangent), both of the
output's dtype; they are compared for every (differentiable output, input) pair.  Fast
mode compares the vectors ``J u`` (``u`` random unit vector per input, ``1j u`` for an
imaginary part; no ``v``), numerically by one directional central difference, analytically
by one dual pass, with ``atol`` scaled by ``sum(u)``.  Forward-over-reverse
(gradgradcheck's ``check_fwd_over_rev``) and batched tangents
(``check_batched_forward_grad``) are not available: ``forward_ad`` tangents are plain
arrays (its module docstring).

Non-tensor inputs and tensors that do not require grad are passed through unchanged and
not checked; ``func`` may return a Tensor or a tuple/list of them.

The function under check and its Jacobians are in ``_gradcheck_fn.py``, the checks (slow
and fast mode, batched gradients, undefined gradients) in ``_gradcheck_modes.py``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import autograd   # autograd.grad is looked up at each call (the package defines it)
from .. import _tensor as T
from .._factories import _gen
from ..types import Tensor
from ._gradcheck_fn import GradcheckError, _Fn, _diff_outputs, _is_tensor, _tuple
from ._gradcheck_modes import (
    _check_inputs, _fast_gradcheck, _no_batched_forward_grad, _no_fwd_over_rev,
    _slow_gradcheck, _test_backward_mul_by_grad_output, _test_batched_grad,
    _test_undefined_backward_mode, _test_undefined_forward_mode
)

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


# ------------------------------------------------------------------------ public API
def gradcheck(func: Callable[..., Tensor | Sequence[Tensor]], inputs: Tensor | Sequence[Any], *,
              eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0,
              check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
              check_batched_grad: bool = False, check_batched_forward_grad: bool = False,
              check_forward_ad: bool = False, check_backward_ad: bool = True,
              fast_mode: bool = False, masked: bool | None = None) -> bool:
    """Check the gradients of ``func`` at ``inputs`` against finite differences.

    ``torch.autograd.gradcheck``; the method of the gradcheck notes (see the module
    docstring).

    Parameters
    ----------
    func : callable
        Called as ``func(*inputs)``; returns a Tensor or a tuple/list of Tensors.
    inputs : Tensor or sequence
        The float64/complex128 Tensors with ``requires_grad=True`` are checked (others
        are passed through).
    eps : float, optional
        Finite-difference step.
    atol, rtol : float, optional
        Tolerances of ``allclose(analytical, numerical)`` (atol scaled by
        ``sum(u) sum(v)`` in fast mode).
    raise_exception : bool, optional
        Raise :class:`GradcheckError` on failure (else return False).
    nondet_tol : float, optional
        Two backward passes may differ by at most this much.
    check_undefined_grad : bool, optional
        Backward must accept zero/undefined output gradients.
    check_grad_dtypes : bool, optional
        Gradients must have their input's dtype.
    check_batched_grad : bool, optional
        ``autograd.grad(is_grads_batched=True)`` must match a loop.
    check_batched_forward_grad : bool, optional
        Not available (NotImplementedError): forward_ad cannot batch tangents.
    check_forward_ad : bool, optional
        Also check the forward-mode (``forward_ad``) Jacobians against finite
        differences, per real/imaginary part of complex inputs (module docstring), and,
        with ``check_undefined_grad``, that a missing tangent acts as a zero one.
    check_backward_ad : bool, optional
        Run the backward-mode checks (False: forward mode only).
    fast_mode : bool, optional
        Compare ``v^T J u`` scalars instead of full Jacobians.
    masked : bool, optional
        Sparse-only option of PyTorch; accepted and ignored (no sparse tensors).

    Returns
    -------
    bool
        True if every check passed (False on failure with ``raise_exception=False``).

    Raises
    ------
    GradcheckError
        (a RuntimeError) A Jacobian mismatch (naming the output and input indices,
        counted among the differentiable outputs and the inputs requiring grad, and
        printing both ``(input.numel(), output.numel())`` Jacobians), a non-reentrant
        backward, a gradient of the wrong size/dtype, a non-zero gradient for zero
        grad_outputs or for a function without differentiable outputs; in forward mode a
        "Jacobian computed with forward mode mismatch" (prefixed, for complex inputs,
        with the part considered), a tangent whose complexness differs from its output's
        (with ``check_grad_dtypes``), or output tangents that differ between a zero and a
        missing input tangent.
    NotImplementedError
        ``check_batched_forward_grad=True``.
    ValueError
        No input requires grad.
    RuntimeError
        An input has a zero stride.
    AssertionError
        Inconsistent flags, or outputs whose shape/dtype change when the inputs are
        perturbed.

    Warns
    -----
    UserWarning
        An input requiring grad is not float64/complex128.
    """
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad "
                             "to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to "
                             "be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires "
                             "check_forward_ad to be True")
    args: dict[str, Any] = dict(eps=eps, atol=atol, rtol=rtol, nondet_tol=nondet_tol,
                check_undefined_grad=check_undefined_grad, check_grad_dtypes=check_grad_dtypes,
                check_batched_grad=check_batched_grad,
                check_batched_forward_grad=check_batched_forward_grad,
                check_forward_ad=check_forward_ad, check_backward_ad=check_backward_ad,
                fast_mode=fast_mode, masked=masked)
    if not raise_exception:
        try:
            return _gradcheck_helper(func, inputs, **args)
        except GradcheckError:
            return False
    return _gradcheck_helper(func, inputs, **args)


# ``autograd.gradcheck.GradcheckError`` resolves (a function attribute)
gradcheck.GradcheckError = GradcheckError  # type: ignore[attr-defined]


def _gradcheck_helper(func: Callable[..., Any], inputs: Any, *, eps: float, atol: float,
                      rtol: float, nondet_tol: float, check_undefined_grad: bool,
                      check_grad_dtypes: bool, check_batched_grad: bool,
                      check_batched_forward_grad: bool, check_forward_ad: bool,
                      check_backward_ad: bool, fast_mode: bool, masked: bool | None) -> bool:
    tupled = _tuple(inputs)
    _check_inputs(tupled)
    if check_batched_forward_grad:
        _no_batched_forward_grad()
    func_out = func(*tupled)
    check = _fast_gradcheck if fast_mode else _slow_gradcheck
    whole = _Fn(func, tupled, func_out, None)
    if check_backward_ad:
        complex_out = any(_is_tensor(o) and o.is_complex() for o in _tuple(func_out))
        for part in ("imag", "real") if complex_out else (None,):
            check(_Fn(func, tupled, func_out, part) if part else whole, eps, rtol, atol,
                  check_grad_dtypes, nondet_tol)
    if check_forward_ad:
        # complex inputs: their imaginary parts first, then their real parts (PyTorch)
        fw_parts = ("imag", "real") if whole.complex_in else ("real",)
        for fw_part in fw_parts:
            check(whole, eps, rtol, atol, check_grad_dtypes, nondet_tol, fw_part=fw_part)
        if check_undefined_grad:
            for fw_part in fw_parts:
                _test_undefined_forward_mode(whole, fw_part)
    if not check_backward_ad:
        return True
    if check_batched_grad:
        for i, o in enumerate(whole.outputs):
            _test_batched_grad(whole, o, i)
    _test_backward_mul_by_grad_output(whole, masked)
    if check_undefined_grad:
        _test_undefined_backward_mode(whole)
    return True


def _random_grad_outputs(outputs: Sequence[Tensor], noncontiguous: bool
                         ) -> tuple[Tensor, ...]:
    """gradgradcheck's default grad_outputs: uniform in [-1, 1) (each part for complex),
    the outputs' shapes and dtypes (float64 for non-float outputs), requiring grad;
    drawn from the global generator (``ftrans.compat.manual_seed``)."""
    rng = _gen(None)
    res = []
    for o in outputs:
        dt = o._data.dtype if o._data.dtype.kind in "fc" else np.dtype(np.float64)
        shape = o._data.shape
        a = rng.uniform(-1, 1, shape)
        if dt.kind == "c":
            a = a + 1j * rng.uniform(-1, 1, shape)
        a = a.astype(dt)
        if noncontiguous and a.size > 1:  # every other element of a twice larger array
            buf = np.zeros(shape + (2,), dt)
            buf[..., 0] = a
            a = buf[..., 0]
        t = T._make(a)
        t.requires_grad_(True)
        res.append(t)
    return tuple(res)


def gradgradcheck(func: Callable[..., Tensor | Sequence[Tensor]],
                  inputs: Tensor | Sequence[Any],
                  grad_outputs: Tensor | Sequence[Tensor] | None = None, *,
                  eps: float = 1e-6, atol: float = 1e-5,
                  rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0,
                  check_undefined_grad: bool = True, check_grad_dtypes: bool = False,
                  check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False,
                  masked: bool = False) -> bool:
    """Check second derivatives: :func:`gradcheck` of ``F(x, v) = v^T J_f(x)``.

    The gradcheck notes' gradgradcheck (``torch.autograd.gradgradcheck``). ``F``
    computes ``autograd.grad(f(x), x, v, create_graph=True, allow_unused=True)`` (unused
    inputs dropped) and is checked w.r.t. the inputs requiring grad and ``v``.

    Parameters
    ----------
    func : callable
        Called as ``func(*inputs)``; returns a Tensor or a tuple/list of Tensors.
    inputs : Tensor or sequence
        As in :func:`gradcheck`.
    grad_outputs : Tensor or sequence of Tensor, optional
        ``v``, one per differentiable output of ``func``; by default random tensors
        shaped like the outputs, uniform in [-1, 1), requiring grad.
    eps, atol, rtol, raise_exception, nondet_tol : optional
        As in :func:`gradcheck`.
    gen_non_contig_grad_outputs : bool, optional
        Make the default ``grad_outputs`` non-contiguous.
    check_undefined_grad, check_grad_dtypes, check_batched_grad : bool, optional
        As in :func:`gradcheck`.
    check_fwd_over_rev : bool, optional
        Not available: raises NotImplementedError (it needs forward-over-reverse AD,
        which ``compat.autograd.forward_ad`` does not support).
    check_rev_over_rev : bool, optional
        Run the reverse-over-reverse check.
    fast_mode, masked : bool, optional
        As in :func:`gradcheck`.

    Returns
    -------
    bool
        True if every check passed (False on failure with ``raise_exception=False``).

    Raises
    ------
    GradcheckError
        As :func:`gradcheck`.
    NotImplementedError
        ``check_fwd_over_rev=True``.
    AssertionError
        Inconsistent flags.
    """
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or "
                             "check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev "
                             "to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to "
                             "be True")
    if check_fwd_over_rev:
        _no_fwd_over_rev()
    tupled = _tuple(inputs)
    if grad_outputs is None:
        tupled_grad_outputs = _random_grad_outputs(_diff_outputs(func(*tupled)),
                                                   gen_non_contig_grad_outputs)
    else:
        tupled_grad_outputs = _tuple(grad_outputs)
    num_outputs = len(tupled_grad_outputs)
    diff_in = {i for i, x in enumerate(tupled) if _is_tensor(x) and x.requires_grad}
    diff_go = {i for i, x in enumerate(tupled_grad_outputs) if _is_tensor(x) and x.requires_grad}

    def new_func(*args: Any) -> tuple[Tensor, ...]:
        input_args = tuple(x.requires_grad_() if i in diff_in else x
                           for i, x in enumerate(args[:len(args) - num_outputs]))
        outputs = _diff_outputs(func(*input_args))
        gos = tuple(x.requires_grad_() if i in diff_go else x
                    for i, x in enumerate(args[len(args) - num_outputs:]))
        diff_args = tuple(x for i, x in enumerate(input_args) if i in diff_in)
        grads = autograd.grad(outputs, diff_args, gos, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(new_func, tupled + tupled_grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad,
                     fast_mode=fast_mode, check_forward_ad=check_fwd_over_rev,
                     check_backward_ad=check_rev_over_rev, masked=masked)
