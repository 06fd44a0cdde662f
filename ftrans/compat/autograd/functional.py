"""``torch.autograd.functional`` on the compat graph: ``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``vhp``, ``hvp``.

The functions follow the specification ("Functional higher level API",
``shared/spec/torch-autograd-reference.txt``) and PyTorch 2.13's implementation of it,
argument by argument: the same signatures, the same return structures (a Tensor where
``inputs``/the outputs of ``func`` were given as a Tensor, a tuple where given as a tuple,
a tuple of tuples for ``jacobian``/``hessian`` when both are tuples), the same errors
(type and message) for bad arguments, and the same ``create_graph``/``strict``
semantics:

* every input is replaced by a fresh tensor before ``func`` sees it (``x.detach()``
  requiring grad, or ``x.view_as(x)`` when ``create_graph`` and ``x`` requires grad, so
  that the result stays differentiable with respect to ``x``);
* ``create_graph=False``: results (and ``func``'s outputs) are detached;
  ``create_graph=True``: they are computed in a differentiable way and can be
  differentiated again;
* ``strict=False``: an input that the outputs do not depend on gets a zero result of
  the right shape and dtype; ``strict=True``: ``RuntimeError`` instead (PyTorch's
  messages).

``jvp`` and ``hvp`` use the double-backward trick, as PyTorch does (the note under
``jvp`` in the spec): the VJP ``u -> J^H u`` is linear in ``u``, and backpropagating
``v`` through it gives ``J v``.

``vectorize=True`` computes all rows of a Jacobian with one call of
``autograd.grad(..., is_grads_batched=True)``, which runs the compat engine once under
``ftrans.vmap`` (see :mod:`._batched`; graphs that cannot run batched, e.g. with
``create_graph=True`` or hooks, fall back to one backward per row with the same values).
"""
from __future__ import annotations

import numpy as np

from .. import autograd   # autograd.grad is looked up at each call (the package defines it)
from .. import _factories as F
from .. import _ops as O
from .._tensor import Tensor
from .grad_mode import enable_grad, set_grad_enabled, is_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]


# ------------------------------------------------------------------------------ helpers
def _as_tuple(inp, arg_name, fn_name):
    """``(given as a tuple, tuple of Tensors)``; ``TypeError`` for anything else."""
    is_tuple = isinstance(inp, tuple)
    if not is_tuple:
        inp = (inp,)
    for i, el in enumerate(inp):
        if not isinstance(el, Tensor):
            where = (f"value at index {i} has type {type(el)}" if is_tuple
                     else f"given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but the {where}.")
    return is_tuple, inp


def _tuple_postprocess(res, to_unpack):
    """Undo :func:`_as_tuple` on ``res`` (``to_unpack``: one flag, or (outer, inner))."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _grad_preprocess(inputs, create_graph, need_graph):
    """Fresh tensors for ``inputs``: a differentiable alias (``view_as``) when
    ``create_graph`` and the input requires grad, else a detached copy requiring grad
    when ``need_graph``."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(need_graph))
    return tuple(res)


def _grad_postprocess(inputs, create_graph):
    """Detach (nested tuples of) results unless ``create_graph``."""
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _validate_v(v, other, is_other_tuple):
    """``RuntimeError`` unless ``v`` has one tensor per entry of ``other``, of its size."""
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but "
                               f"got {len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


_STRICT_MESSAGES = {
    "hessian": ("The hessian of the user-provided function with respect to input {i} is "
                "independent of the input. This is not allowed in strict mode. You should "
                "ensure that your function is thrice differentiable and that the hessian "
                "depends on the inputs."),
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "grad_inputs": ("The gradient with respect to input {i} is independent of the inputs of "
                    "the user-provided function. This is not allowed in strict mode."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
}


def _check_requires_grad(tensors, input_type, strict):
    """In strict mode, ``RuntimeError`` for a missing or non-differentiable tensor."""
    if not strict:
        return
    for i, t in enumerate(tensors):
        if t is None:  # only for grad_inputs
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not t.requires_grad:
            raise RuntimeError(_STRICT_MESSAGES[input_type].format(i=i))


def _autograd_grad(outputs, inputs, grad_outputs=None, create_graph=False, retain_graph=None,
                   is_grads_batched=False):
    """``autograd.grad`` over the outputs that require grad (``allow_unused``); all None
    when none does."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    new_outputs, new_grad_outputs = [], []
    for out, g in zip(outputs, grad_outputs):
        if out is not None and out.requires_grad:
            new_outputs.append(out)
            new_grad_outputs.append(g)
    if not new_outputs:
        return (None,) * len(inputs)
    return autograd.grad(tuple(new_outputs), inputs, tuple(new_grad_outputs), allow_unused=True,
                create_graph=create_graph, retain_graph=retain_graph,
                is_grads_batched=is_grads_batched)


_FILL_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "back_trick": ("The gradient with respect to the input is independent of entry {i} in "
                   "the grad_outputs when using the double backward trick to compute forward "
                   "mode gradients. This is not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
    "double_back_trick": ("The hessian of the user-provided function is independent of entry "
                          "{i} in the grad_jacobian. This is not allowed in strict mode as it "
                          "prevents from using the double backward trick to replace forward "
                          "mode AD."),
}


def _fill_in_zeros(grads, refs, strict, create_graph, stage):
    """Zeros like ``refs[i]`` where ``grads[i]`` is None (``RuntimeError`` in strict mode,
    also for a gradient that does not require grad when ``create_graph``)."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(_FILL_MESSAGES[stage].format(i=i))
            g = F.zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def _v_or_default(v, refs, is_refs_tuple, create_graph, fn_name, none_msg):
    """``v`` as a tuple checked against ``refs``; ``RuntimeError(none_msg)`` when it is
    None and ``refs`` is not one single-element tensor (the default ``v`` is then 1)."""
    if v is not None:
        _, v = _as_tuple(v, "v", fn_name)
        v = _grad_preprocess(v, create_graph=create_graph, need_graph=False)
        _validate_v(v, refs, is_refs_tuple)
        return v
    if len(refs) != 1 or refs[0].nelement() != 1:
        raise RuntimeError(none_msg)
    return None


def _single_output(outputs, is_outputs_tuple, fn_name):
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function "
                 "is a single Tensor with a single element.")


# ------------------------------------------------------------------------------ vjp / jvp
def _call(func, inputs, strict, fn_name):
    """``func(*inputs)`` as ``(is_tuple, outputs)``, the outputs checked (Tensors, and in
    strict mode requiring grad)."""
    is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs of the user-provided "
                                          "function", fn_name)
    _check_requires_grad(outputs, "outputs", strict=strict)
    return is_outputs_tuple, outputs


def _result(outputs, is_outputs_tuple, res, is_res_tuple, create_graph):
    """``(func_output, result)`` as returned: detached unless ``create_graph``, single
    Tensors where a Tensor (not a tuple) was given."""
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_res_tuple))


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), v^H J)``: the vector-Jacobian product at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes the input Tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
    v : Tensor or tuple of Tensors, optional
        One tensor per output of ``func``, of its size.  Optional only when ``func``
        returns a single one-element tensor (then 1).
    create_graph, strict : bool
        See the module docstring.

    Returns
    -------
    (func_output, vjp)
        ``func_output`` as ``func`` returned it (detached unless ``create_graph``);
        ``vjp`` shaped like ``inputs`` (a Tensor or a tuple), each entry with the shape
        and dtype of its input (complex inputs follow the conjugate-Wirtinger convention
        of ``autograd.grad``).

    Raises
    ------
    TypeError
        ``inputs``, ``v`` or ``func``'s outputs not a Tensor or a tuple of Tensors.
    RuntimeError
        ``v`` of the wrong length or size, ``v`` missing for a non-scalar output, and in
        strict mode an output that does not require grad or an input the outputs do not
        depend on.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, strict, "vjp")
        v = _v_or_default(v, outputs, is_outputs_tuple, create_graph, "vjp",
                          "The vector v can only be None if the user-provided function "
                          "returns a single Tensor with a single element.")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(outputs, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "back")
    return _result(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def _double_back_trick(outputs, inputs, strict):
    """``(u, J^H u)`` with ``u`` zero tensors requiring grad, one per output: backpropagating
    ``v`` from ``J^H u`` to ``u`` gives ``J v``.  ``J^H u`` is recorded
    (``create_graph=True``); it is linear in ``u``, so the value of ``u`` does not matter."""
    zeros_like = F.zeros_like
    u = tuple(zeros_like(out, requires_grad=True) for out in outputs)
    gi = _autograd_grad(outputs, inputs, u, create_graph=True)
    _check_requires_grad(gi, "grad_inputs", strict=strict)
    return u, gi


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``, computed with the
    double-backward trick (spec note under ``jvp``; PyTorch does the same).

    Parameters
    ----------
    func : callable
        Takes the input Tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
    v : Tensor or tuple of Tensors, optional
        One tensor per input, of its size.  Optional only when ``inputs`` is a single
        one-element tensor (then 1).
    create_graph, strict : bool
        See the module docstring.

    Returns
    -------
    (func_output, jvp)
        ``jvp`` shaped like ``func``'s outputs (a Tensor or a tuple), each entry with the
        shape and dtype of its output.

    Raises
    ------
    TypeError
        ``inputs``, ``v`` or ``func``'s outputs not a Tensor or a tuple of Tensors.
    RuntimeError
        ``v`` of the wrong length or size, ``v`` missing for a non-scalar input, and in
        strict mode an output that does not require grad or an input the outputs do not
        depend on.
    """
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        v = _v_or_default(v, inputs, is_inputs_tuple, create_graph, "jvp",
                          "The vector v can only be None if the input to the user-provided "
                          "function is a single Tensor with a single element.")
        is_outputs_tuple, outputs = _call(func, inputs, strict, "jvp")
        grad_outputs, grad_inputs = _double_back_trick(outputs, inputs, strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(grad_inputs, grad_outputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, outputs, strict, create_graph, "back_trick")
    return _result(outputs, is_outputs_tuple, res, is_outputs_tuple, create_graph)


# ------------------------------------------------------------------------------ jacobian
def _standard_basis(tensors, numels):
    """The identity of size ``N = sum(numels)`` split by columns: one ``(N, numel_i)``
    chunk per tensor, of its dtype (the batched grad_outputs/tangents of a vectorized
    Jacobian)."""
    total = sum(numels)
    chunks, start = [], 0
    for t, n in zip(tensors, numels):
        chunks.append(F.from_numpy(np.eye(total, n, k=-start, dtype=t._data.dtype)))
        start += n
    return tuple(chunks)


def _jacfwd(func, inputs, strict, vectorize):
    """``strategy="forward-mode"``: one column of the Jacobian per input element, all at
    once -- the double-backward trick batched over the standard basis of the inputs
    (``autograd.grad(..., is_grads_batched=True)``, one vmapped engine pass), in place of
    PyTorch's forward-mode AD.  Each block has the dtype of its *output*, as in PyTorch."""
    if strict:
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                           '`strategy="forward-mode"` are not supported together (yet). '
                           'Please either set `strict=False` or `strategy="reverse-mode"`.')
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if not vectorize:
        raise NotImplementedError("Computing Jacobian using forward-AD or forward-over-reverse "
                                  "Hessian is only implemented for `vectorize=True`.")
    with enable_grad():
        inputs = _grad_preprocess(inputs, create_graph=False, need_graph=True)
        is_outputs_tuple, outputs = _as_tuple(func(*inputs), "outputs", "jacobian")
        u, gi = _double_back_trick(outputs, inputs, False)
    in_numels = tuple(inp.numel() for inp in inputs)
    total = sum(in_numels)
    tangents = _standard_basis(inputs, in_numels)
    used = [j for j, g in enumerate(gi) if g is not None]
    cols = (None,) * len(outputs)
    if used:
        # (J^H u)_j as a function of u, flattened, with the basis rows of input j as the
        # batched cotangents: row k of the result for output i is J_i e_k
        cols = _autograd_grad(tuple(gi[j].reshape(-1) for j in used), u,
                              tuple(tangents[j] for j in used), is_grads_batched=True)
    jac = []
    for out, col in zip(outputs, cols):
        if col is None:
            col = F.zeros((total,) + tuple(out.shape), dtype=out.dtype)
        row = []
        for block, inp in zip(col.split(in_numels, dim=0), inputs):
            # the batch dimension runs over the input's elements: move it last
            block = block.permute(*range(1, block.ndim), 0)
            row.append(block.reshape(tuple(out.shape) + tuple(inp.shape)).detach())
        jac.append(tuple(row))
    return _tuple_postprocess(tuple(jac), (is_outputs_tuple, is_inputs_tuple))


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs``.

    Parameters
    ----------
    func : callable
        Takes the input Tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
    create_graph, strict : bool
        See the module docstring.  ``strict=True`` is not supported together with
        ``vectorize=True`` nor with ``strategy="forward-mode"`` (as in PyTorch).
    vectorize : bool
        False: one ``autograd.grad`` per output element (row).  True: all rows in one
        ``autograd.grad(..., is_grads_batched=True)`` call -- one backward pass under
        ``ftrans.vmap`` (a loop over rows only where the graph cannot run batched,
        e.g. ``create_graph=True``; see :mod:`._batched`).
    strategy : {"reverse-mode", "forward-mode"}
        ``"forward-mode"`` requires ``vectorize=True`` and ``create_graph=False`` (as in
        PyTorch).  It is computed with the double-backward trick batched over the
        standard basis of the inputs: one vmapped backward through the recorded VJP
        (``ftrans.compat`` has no forward-mode AD of its own yet).

    Returns
    -------
    Tensor, tuple of Tensors, or tuple of tuples of Tensors
        ``J[i][j]`` has shape ``output_i.shape + input_j.shape`` and the dtype of
        ``input_j`` (of ``output_i`` with ``strategy="forward-mode"``); a single Tensor
        when both ``inputs`` and the outputs were single Tensors, one level of tuple when
        one of them was a tuple.  For complex tensors an entry is the derivative
        ``autograd.grad`` gives for a one-hot ``grad_output`` (the conjugate of ``f'``
        for a holomorphic ``f``) in reverse mode, ``f'`` in forward mode, as in PyTorch.

    Raises
    ------
    AssertionError
        ``strategy`` not one of the two names (PyTorch raises the same).
    NotImplementedError
        ``strategy="forward-mode"`` with ``create_graph=True`` or ``vectorize=False``.
    TypeError
        ``inputs`` or ``func``'s outputs not a Tensor or a tuple of Tensors.
    RuntimeError
        ``strict=True`` with ``vectorize=True`` or forward mode; in strict mode, an
        output that does not require grad or an input an output does not depend on;
        a complex output without ``vectorize=True`` (PyTorch cannot create the implicit
        gradient of a complex scalar either).
    """
    if strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or '
                             '"reverse-mode". Hint: If your function has more outputs than '
                             'inputs, "forward-mode" tends to be more performant. Otherwise, '
                             'prefer to use "reverse-mode".')
    if strategy == "forward-mode":
        if create_graph:
            raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                      'and `strategy="forward-mode"` are not supported '
                                      "together (yet). Please either set `create_graph=False` "
                                      'or `strategy="reverse-mode"`.')
        return _jacfwd(func, inputs, strict, vectorize)
    with enable_grad():
        is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
        inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
        is_outputs_tuple, outputs = _call(func, inputs, strict, "jacobian")
        if vectorize:
            if strict:
                raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and "
                                   "`vectorized=True` are not supported together. Please "
                                   "either set `strict=False` or `vectorize=False`.")
            out_numels = tuple(out.numel() for out in outputs)
            total = sum(out_numels)
            # row k of the stacked flat outputs is reached by the k-th basis vector
            vj = list(_autograd_grad(tuple(out.reshape(-1) for out in outputs), inputs,
                                     _standard_basis(outputs, out_numels),
                                     create_graph=create_graph, is_grads_batched=True))
            for j, g in enumerate(vj):
                if g is None:
                    vj[j] = F.zeros_like(inputs[j]).expand((total,) + tuple(inputs[j].shape))
            jac = tuple(
                tuple(block.view(tuple(out.shape) + tuple(inp.shape))
                      for block, out in zip(g.split(out_numels, dim=0), outputs))
                for g, inp in zip(vj, inputs))
            jac = tuple(zip(*jac))  # [input][output] -> [output][input]
            jac = _grad_postprocess(jac, create_graph)
            return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))
        jac = []
        for i, out in enumerate(outputs):
            rows = tuple([] for _ in inputs)
            flat = out.reshape(-1)
            for k in range(out.nelement()):
                vj = _autograd_grad((flat[k],), inputs, retain_graph=True,
                                    create_graph=create_graph)
                for j, (g, inp) in enumerate(zip(vj, inputs)):
                    if g is not None:
                        if strict and create_graph and not g.requires_grad:
                            # (PyTorch names the output's index here)
                            raise RuntimeError(f"The jacobian of the user-provided function "
                                               f"is independent of input {i}. This is not "
                                               "allowed in strict mode when create_graph=True.")
                        rows[j].append(g)
                    else:
                        if strict:
                            raise RuntimeError(f"Output {i} of the user-provided function is "
                                               f"independent of input {j}. This is not "
                                               "allowed in strict mode.")
                        rows[j].append(F.zeros_like(inp))
            jac.append(tuple(O.stack(r, dim=0).view(tuple(out.shape) + tuple(inp.shape))
                             for r, inp in zip(rows, inputs)))
        jac = _grad_postprocess(tuple(jac), create_graph)
        return _tuple_postprocess(jac, (is_outputs_tuple, is_inputs_tuple))


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of the scalar function ``func`` at ``inputs``: the Jacobian (outer,
    with ``vectorize`` and ``outer_jacobian_strategy``) of its gradient (inner,
    reverse mode, recorded).

    Parameters
    ----------
    func : callable
        Takes the input Tensors, returns a Tensor with one element.
    inputs : Tensor or tuple of Tensors
    create_graph, strict, vectorize : bool
        As for :func:`jacobian`.
    outer_jacobian_strategy : {"reverse-mode", "forward-mode"}
        Strategy of the outer Jacobian (``"forward-mode"`` requires ``vectorize=True``).

    Returns
    -------
    Tensor or tuple of tuples of Tensors
        ``H[i][j]`` has shape ``input_i.shape + input_j.shape`` and the dtype of
        ``input_i``; a single Tensor when ``inputs`` was a single Tensor.

    Raises
    ------
    AssertionError
        ``outer_jacobian_strategy`` not one of the two names.
    TypeError
        ``inputs`` or ``func``'s output not a Tensor or a tuple of Tensors.
    RuntimeError
        ``func`` returning a tuple or a tensor with more than one element; the strict
        mode errors of :func:`jacobian` and for a gradient or Hessian that does not
        depend on the inputs.
    """
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("forward-mode", "reverse-mode"):
        raise AssertionError('Expected strategy to be either "forward-mode" or "reverse-mode".')

    def ensure_single_output_function(*inp):
        out = func(*inp)
        is_out_tuple, t_out = _as_tuple(out, "outputs of the user-provided function", "hessian")
        _check_requires_grad(t_out, "outputs", strict=strict)
        _single_output(t_out, is_out_tuple, "hessian")
        return out.squeeze()

    def jac_func(*inp):
        if outer_jacobian_strategy == "forward-mode":
            inp = tuple(t.requires_grad_(True) for t in inp)
        jac = jacobian(ensure_single_output_function, inp, create_graph=True)
        _check_requires_grad(jac, "jacobian", strict=strict)
        return jac

    res = jacobian(jac_func, inputs, create_graph=create_graph, strict=strict,
                   vectorize=vectorize, strategy=outer_jacobian_strategy)
    return _tuple_postprocess(res, (is_inputs_tuple, is_inputs_tuple))


# ------------------------------------------------------------------------------ vhp / hvp
def _hessian_prelude(func, inputs, v, create_graph, strict, fn_name):
    """Shared start of vhp/hvp: preprocessed inputs, ``v``, ``func``'s output and its
    recorded gradient ``jac``."""
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _grad_preprocess(inputs, create_graph=create_graph, need_graph=True)
    v = _v_or_default(v, inputs, is_inputs_tuple, create_graph, fn_name, _V_NONE_INPUT)
    is_outputs_tuple, outputs = _call(func, inputs, strict, fn_name)
    _single_output(outputs, is_outputs_tuple, fn_name)
    jac = _autograd_grad(outputs, inputs, create_graph=True)
    _check_requires_grad(jac, "jacobian", strict=strict)
    return is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac


_HP_DOC = """

    Parameters
    ----------
    func : callable
        Takes the input Tensors, returns a Tensor with one element.
    inputs : Tensor or tuple of Tensors
    v : Tensor or tuple of Tensors, optional
        One tensor per input, of its size.  Optional only when ``inputs`` is a single
        one-element tensor (then 1).
    create_graph, strict : bool
        See the module docstring.

    Returns
    -------
    (func_output, {name})
        ``func_output`` as ``func`` returned it (detached unless ``create_graph``);
        ``{name}`` shaped like ``inputs`` (a Tensor or a tuple), each entry with the shape
        and dtype of its input.

    Raises
    ------
    TypeError
        ``inputs``, ``v`` or ``func``'s output not a Tensor or a tuple of Tensors.
    RuntimeError
        ``v`` of the wrong length or size, ``v`` missing for a non-scalar input, ``func``
        returning a tuple or more than one element; in strict mode, an output that does
        not require grad, a gradient or Hessian independent of an input.
    """


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_prelude(
            func, inputs, v, create_graph, strict, "vhp")
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(jac, inputs, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back")
    return _result(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


vhp.__doc__ = ("``(func(inputs), v^H H)``: the vector-Hessian product of the scalar function "
               "``func`` at ``inputs`` (backward of its recorded gradient)." +
               _HP_DOC.format(name="vhp"))


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    with enable_grad():
        is_inputs_tuple, inputs, v, is_outputs_tuple, outputs, jac = _hessian_prelude(
            func, inputs, v, create_graph, strict, "hvp")
        # double-backward trick: grad_jac -> H grad_jac is linear; backpropagate v through it
        grad_jac = tuple(F.zeros_like(inp, requires_grad=True) for inp in inputs)
        double_back = _autograd_grad(jac, inputs, grad_jac, create_graph=True)
        _check_requires_grad(jac, "hessian", strict=strict)
    with set_grad_enabled(True if create_graph else is_grad_enabled()):
        grad_res = _autograd_grad(double_back, grad_jac, v, create_graph=create_graph)
        res = _fill_in_zeros(grad_res, inputs, strict, create_graph, "double_back_trick")
    return _result(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


hvp.__doc__ = ("``(func(inputs), H v)``: the Hessian-vector product of the scalar function "
               "``func`` at ``inputs``, with the double-backward trick (spec note under "
               "``hvp``: equal to ``vhp`` for twice continuously differentiable functions, "
               "and slower)." + _HP_DOC.format(name="hvp"))
