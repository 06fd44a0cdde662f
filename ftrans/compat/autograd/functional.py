"""``torch.autograd.functional`` on ``compat.func``: ``jacobian``, ``hessian``, ``vjp``,
``jvp``, ``vhp``, ``hvp``.

The functions follow the specification ("Functional higher level API",
``shared/spec/torch-autograd-reference.txt``) and PyTorch 2.13's implementation of it,
argument by argument: the same signatures, the same return structures (a Tensor where
``inputs``/the outputs of ``func`` were given as a Tensor, a tuple where given as a tuple,
a tuple of tuples for ``jacobian``/``hessian`` when both are tuples), the same errors
(type and message) for bad arguments, and the same ``create_graph``/``strict``
semantics.  The derivatives come from ``compat.func`` -- that is, from ftrans's
transforms, never from a second Jacobian implementation:

* ``vjp`` is ``compat.func.vjp``; ``jvp`` is ``compat.func.jvp`` (forward mode, where
  PyTorch uses the double-backward trick: same values); ``jacobian`` is
  ``compat.func.jacrev`` (``strategy="reverse-mode"``) or ``jacfwd``
  (``"forward-mode"``) -- one batched pass over the basis whatever ``vectorize`` says
  (``vectorize`` keeps its argument checks); ``hessian`` is ``jacrev``/``jacfwd`` of
  ``jacrev``; ``vhp`` is the VJP of the gradient, ``hvp`` its JVP (forward over reverse).
* Inputs are replaced as PyTorch does: ``create_graph=True`` keeps an input that requires
  grad (the results are then differentiable with respect to it, through one compat node
  whose backward is ``ftrans.vjp`` of the computation) and makes the others fresh leaves
  requiring grad; ``create_graph=False`` detaches them and the results.
* ``strict=False``: an input the outputs do not depend on gets zeros of the right shape
  and dtype; ``strict=True``: PyTorch's ``RuntimeError`` messages.  Dependence is
  structural, as PyTorch's graph: ``func`` (or the gradient it leads to) is run once per
  input with that input traced by ``ftrans.vjp``, and an output depends on it when the
  output is a tracer of that trace (strict mode only).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeAlias

import numpy as np

from ... import numpy as _fnp
from ... import transforms as _TR
from .. import func as _func
from .._func_core import call_transformed
from .._tensor import Tensor, _make_plain
from ...core.trace import Tracer
from ...transforms.vjp import vjp_unchecked
from .. import _factories as F
from .grad_mode import no_grad, set_grad_enabled

__all__ = ["vjp", "jvp", "jacobian", "hessian", "hvp", "vhp"]

#: A Tensor or a tuple of Tensors (the inputs and outputs of the functions here).
_Tensors: TypeAlias = Tensor | tuple[Tensor, ...]
#: A Jacobian or Hessian: a Tensor, a tuple of them, or a tuple of tuples.
_Blocks: TypeAlias = Tensor | tuple[Tensor, ...] | tuple[tuple[Tensor, ...], ...]


# ------------------------------------------------------------------------------ helpers
def _as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple[Tensor, ...]]:
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


def _tuple_postprocess(res: Any, to_unpack: bool | tuple[bool, bool]) -> Any:
    """Undo :func:`_as_tuple` on ``res`` (``to_unpack``: one flag, or (outer, inner))."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def _validate_v(v: Sequence[Tensor], other: Sequence[Tensor], is_other_tuple: bool) -> None:
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
    "jacobian": ("While computing the hessian, found that the jacobian of the user-provided "
                 "function with respect to input {i} is independent of the input. This is not "
                 "allowed in strict mode. You should ensure that your function is twice "
                 "differentiable and that the jacobian depends on the inputs (this would be "
                 "violated by a linear function for example)."),
    "outputs": ("Output {i} of the user-provided function does not require gradients. The "
                "outputs must be computed in a differentiable manner from the input when "
                "running in strict mode."),
}


_FILL_MESSAGES = {
    "back": ("The output of the user-provided function is independent of input {i}. This is "
             "not allowed in strict mode."),
    "double_back": ("The jacobian of the user-provided function is independent of input {i}. "
                    "This is not allowed in strict mode."),
}


def _v_or_default(v: _Tensors | None, refs: Sequence[Tensor], is_refs_tuple: bool,
                  create_graph: bool, fn_name: str, none_msg: str
                  ) -> tuple[Tensor, ...] | None:
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


def _single_output(outputs: Sequence[Tensor], is_outputs_tuple: bool, fn_name: str) -> None:
    if is_outputs_tuple or not isinstance(outputs[0], Tensor):
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor")
    if outputs[0].nelement() != 1:
        raise RuntimeError(f"The Tensor returned by the function given to {fn_name} should "
                           "contain a single element")


_V_NONE_INPUT = ("The vector v can only be None if the input to the user-provided function "
                 "is a single Tensor with a single element.")




def _preprocess(inputs: Sequence[Tensor], create_graph: bool) -> tuple[Tensor, ...]:
    """PyTorch's ``_grad_preprocess``: with ``create_graph`` an input that requires grad
    is kept (``view_as``: the results stay differentiable with respect to it) and the
    others become fresh leaves requiring grad; without, detached copies."""
    res = []
    for inp in inputs:
        if create_graph and inp.requires_grad:
            res.append(inp.view_as(inp))
        else:
            res.append(inp.detach().requires_grad_(create_graph))
    return tuple(res)


def _grad_preprocess(inputs: Sequence[Tensor], create_graph: bool, need_graph: bool
                     ) -> tuple[Tensor, ...]:
    """PyTorch's preprocessing of ``v`` (never made to require grad)."""
    return tuple(inp.view_as(inp) if create_graph and inp.requires_grad else inp.detach()
                 for inp in inputs)


def _grad_postprocess(inputs: Sequence[Any], create_graph: bool) -> Any:
    """Detach (nested tuples of) results unless ``create_graph``."""
    if isinstance(inputs[0], Tensor):
        return inputs if create_graph else tuple(inp.detach() for inp in inputs)
    return tuple(_grad_postprocess(inp, create_graph) for inp in inputs)


def _tuple_fn(func: Callable[..., Any], fn_name: str, arg_name: str, box: list[Any]
              ) -> Callable[..., tuple[Tensor, ...]]:
    """``func`` returning a tuple of Tensors (``TypeError`` for anything else, PyTorch's
    message); whether ``func`` returned a tuple goes to ``box``."""
    def g(*ins: Tensor) -> tuple[Tensor, ...]:
        is_tuple, outs = _as_tuple(func(*ins), arg_name, fn_name)
        box.append((is_tuple, [o.dtype for o in outs if o.is_complex() and o.numel() > 0]))
        return outs
    return g


def _depends(fn: Callable[..., Sequence[Tensor]], inputs: Sequence[Tensor]
             ) -> list[list[bool]]:
    """``dep[i][j]``: output ``i`` of ``fn(*inputs)`` (a tuple of Tensors) is computed from
    input ``j`` -- structurally, as PyTorch's graph records it: ``fn`` runs once per input
    with that input traced by ``ftrans.vjp``; the output depends on it when it is a
    tracer of that trace."""
    cols = []
    for j, x in enumerate(inputs):
        rec: list[bool] = []

        def f(d: Any, j: int = j, rec: list[bool] = rec) -> list[Any]:
            ins = list(inputs)
            ins[j] = _make_plain(d)
            outs = fn(*ins)
            rec[:] = [isinstance(o._data, Tracer) and o._data._trace is d._trace for o in outs]
            return [o._data for o in outs]
        with no_grad():
            vjp_unchecked(f, x._data)
        cols.append(rec)
    return [[cols[j][i] for j in range(len(inputs))] for i in range(len(cols[0]))]


def _strict_outputs(dep: Sequence[Sequence[bool]]) -> None:
    """PyTorch's strict check of ``func``'s outputs ("does not require gradients")."""
    for i, row in enumerate(dep):
        if not any(row):
            raise RuntimeError(_STRICT_MESSAGES["outputs"].format(i=i))


def _strict_used(dep: Sequence[Sequence[bool]], message: str) -> None:
    """Strict: ``RuntimeError(message)`` for the first input no output depends on."""
    for j in range(len(dep[0]) if dep else 0):
        if not any(row[j] for row in dep):
            raise RuntimeError(message.format(i=j))


def _strict_graph(res: Sequence[Tensor], what: str) -> None:
    """Strict with ``create_graph``: every result must depend on the inputs."""
    for i, r in enumerate(res):
        if not r.requires_grad:
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")


def _zeros_where(res: Sequence[Tensor], used: Sequence[bool]) -> tuple[Tensor, ...]:
    """Results with fresh zeros (no graph) where ``used`` is False: what PyTorch returns
    for a derivative no path reaches (ftrans computes zeros of the input's value, which
    would look differentiable)."""
    return tuple(r if u else F.zeros_like(r.detach()) for r, u in zip(res, used))


def _ones(refs: Sequence[Tensor]) -> tuple[Tensor, ...]:
    return tuple(F.ones_like(r) for r in refs)


def _result(outputs: Sequence[Tensor], is_outputs_tuple: bool, res: Sequence[Any],
            is_res_tuple: Any, create_graph: bool) -> tuple[Any, Any]:
    """``(func_output, result)`` as returned: detached unless ``create_graph``, single
    Tensors where a Tensor (not a tuple) was given."""
    return (_tuple_postprocess(_grad_postprocess(outputs, create_graph), is_outputs_tuple),
            _tuple_postprocess(_grad_postprocess(res, create_graph), is_res_tuple))


_OUTS = "outputs of the user-provided function"


# ------------------------------------------------------------------------------ vjp / jvp
def vjp(func: Callable[..., _Tensors], inputs: _Tensors, v: _Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[_Tensors, _Tensors]:
    """``(func(inputs), v^H J)``: the vector-Jacobian product at ``inputs``
    (``compat.func.vjp``).

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
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "vjp")
    inputs = _preprocess(inputs, create_graph)
    box: list[Any] = []
    g = _tuple_fn(func, "vjp", _OUTS, box)
    with set_grad_enabled(create_graph):
        outputs, vjp_fn = _func.vjp(g, *inputs)
    is_outputs_tuple = box[-1][0]
    dep: list[list[bool]] = _depends(g, inputs) if strict or create_graph else []
    if strict:
        _strict_outputs(dep)
    v = _v_or_default(v, outputs, is_outputs_tuple, create_graph, "vjp",
                      "The vector v can only be None if the user-provided function "
                      "returns a single Tensor with a single element.")
    if strict:
        _strict_used(dep, _FILL_MESSAGES["back"])
    with set_grad_enabled(create_graph):
        res = vjp_fn(_ones(outputs) if v is None else tuple(v))
    if create_graph:
        res = _zeros_where(res, [any(row[j] for row in dep) for j in range(len(inputs))])
    if strict and create_graph:
        _strict_graph(res, "jacobian")
    return _result(outputs, is_outputs_tuple, res, is_inputs_tuple, create_graph)


def jvp(func: Callable[..., _Tensors], inputs: _Tensors, v: _Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[_Tensors, _Tensors]:
    """``(func(inputs), J v)``: the Jacobian-vector product at ``inputs``, by forward mode
    (``compat.func.jvp``; PyTorch computes the same values with the double-backward
    trick, the note under ``jvp`` in the spec).

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
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jvp")
    inputs = _preprocess(inputs, create_graph)
    v = _v_or_default(v, inputs, is_inputs_tuple, create_graph, "jvp", _V_NONE_INPUT)
    box: list[Any] = []
    g = _tuple_fn(func, "jvp", _OUTS, box)
    with set_grad_enabled(create_graph):
        outputs, res = _func.jvp(g, inputs, _ones(inputs) if v is None else tuple(v))
    is_outputs_tuple = box[-1][0]
    if create_graph:
        res = _zeros_where(res, [any(row) for row in _depends(g, inputs)])
    if strict:
        dep = _depends(g, inputs)
        _strict_outputs(dep)
        _strict_used(dep, _FILL_MESSAGES["back"])
        if create_graph:
            _strict_graph(res, "jacobian")
    return _result(outputs, is_outputs_tuple, res, is_outputs_tuple, create_graph)


# ------------------------------------------------------------------------------ jacobian
_FWD_STRICT = ("torch.autograd.functional.jacobian: `strict=True` and "
               '`strategy="forward-mode"` are not supported together (yet). '
               'Please either set `strict=False` or `strategy="reverse-mode"`.')
_FWD_VECTORIZE = ("Computing Jacobian using forward-AD or forward-over-reverse "
                  "Hessian is only implemented for `vectorize=True`.")
_STRICT_VECTORIZE = ("torch.autograd.functional.jacobian: `strict=True` and "
                     "`vectorized=True` are not supported together. Please "
                     "either set `strict=False` or `vectorize=False`.")


def _check_forward_mode(create_graph: bool, strict: bool) -> None:
    """PyTorch's refusals for ``strategy="forward-mode"``."""
    if create_graph:
        raise NotImplementedError("torch.autograd.functional.jacobian: `create_graph=True` "
                                  'and `strategy="forward-mode"` are not supported '
                                  "together (yet). Please either set `create_graph=False` "
                                  'or `strategy="reverse-mode"`.')
    if strict:
        raise RuntimeError(_FWD_STRICT)


def _basis(refs: Sequence[Any]) -> tuple[list[Any], int]:
    """The identity of size ``N = sum of the numels`` split by columns: one
    ``(N, *ref.shape)`` chunk per reference array, of its dtype (the batched
    cotangents/tangents of a Jacobian, as PyTorch's ``_construct_standard_basis_for``)."""
    total = sum(int(np.prod(r.shape)) for r in refs)
    chunks, start = [], 0
    for r in refs:
        n = int(np.prod(r.shape))
        chunks.append(np.eye(total, n, k=-start, dtype=r.dtype).reshape((total,) + r.shape))
        start += n
    return chunks, total


def _jacobian_blocks(g: Callable[..., tuple[Tensor, ...]], inputs: Sequence[Tensor],
                     forward: bool) -> tuple[tuple[Tensor, ...], ...]:
    """``J[i][j]`` (shape ``output_i.shape + input_j.shape``) of ``g`` (inputs -> tuple of
    Tensors) at ``inputs``: ``ftrans.vmap`` of ``ftrans.vjp`` over the output basis
    (reverse mode, blocks of the inputs' dtypes) or of ``ftrans.jvp`` over the input basis
    (forward mode, blocks of the outputs' dtypes), through ``call_transformed`` (one
    compat node when an input requires grad).  Complex values follow PyTorch's
    conventions (``autograd.grad`` with one-hot real cotangents; ``f'`` forward)."""
    def body(plain: Sequence[Tensor]) -> tuple[tuple[Any, ...], ...]:
        datas = [x._data for x in plain]

        def f(*ds: Any) -> tuple[Any, ...]:
            return tuple(o._data for o in g(*[_make_plain(d) for d in ds]))
        if forward:
            outs, fbasis = f(*datas), _basis(datas)
            cols = _TR.vmap(lambda *ts: _TR.jvp(f, tuple(datas), ts)[1])(*fbasis[0]) \
                if fbasis[1] else [np.zeros((0,) + o.shape, o.dtype) for o in outs]
            blocks, start = [], 0
            per_in = []
            for x in datas:
                n = int(np.prod(x.shape))
                per_in.append((start, start + n, x.shape))
                start += n
            for c, o in zip(cols, outs):
                blocks.append(tuple(_fnp.moveaxis(c[a:b], 0, -1).reshape(o.shape + shape)
                                    for a, b, shape in per_in))
            return tuple(blocks)
        outs, back = vjp_unchecked(f, *datas)
        basis, total = _basis(outs)
        rows = _TR.vmap(lambda *us: back(tuple(us)))(*basis) if total else \
            [np.zeros((0,) + x.shape, x.dtype) for x in datas]
        blocks, start = [], 0
        for o in outs:
            n = int(np.prod(o.shape))
            blocks.append(tuple(r[start:start + n].reshape(o.shape + x.shape)
                                for r, x in zip(rows, datas)))
            start += n
        return tuple(blocks)
    return call_transformed((inputs,), lambda p: body(p[0]))


def _check_jacobian(dep: Sequence[Sequence[bool]], jac: Sequence[Sequence[Tensor]],
                    create_graph: bool) -> None:
    """PyTorch's strict checks of a reverse-mode Jacobian, in its order (output ``i``,
    input ``j``)."""
    for i, row in enumerate(dep):
        for j, d in enumerate(row):
            if d and create_graph and not jac[i][j].requires_grad:
                # (PyTorch names the output's index here)
                raise RuntimeError(f"The jacobian of the user-provided function is "
                                   f"independent of input {i}. This is not allowed in "
                                   "strict mode when create_graph=True.")
            if not d:
                raise RuntimeError(f"Output {i} of the user-provided function is "
                                   f"independent of input {j}. This is not allowed in "
                                   "strict mode.")


def jacobian(func: Callable[..., _Tensors], inputs: _Tensors, create_graph: bool = False,
             strict: bool = False, vectorize: bool = False, strategy: str = "reverse-mode"
             ) -> _Blocks:
    """The Jacobian of ``func`` at ``inputs``: ``compat.func.jacrev`` (reverse mode) or
    ``jacfwd`` (forward mode) -- one batched pass over the basis.

    Parameters
    ----------
    func : callable
        Takes the input Tensors, returns a Tensor or a tuple of Tensors.
    inputs : Tensor or tuple of Tensors
    create_graph, strict : bool
        See the module docstring.  ``strict=True`` is not supported together with
        ``vectorize=True`` nor with ``strategy="forward-mode"`` (as in PyTorch).
    vectorize : bool
        PyTorch's performance flag; the Jacobian is computed by one batched pass either
        way.  Its argument rules stay PyTorch's (see Raises).
    strategy : {"reverse-mode", "forward-mode"}
        ``"forward-mode"`` requires ``vectorize=True`` and ``create_graph=False`` (as in
        PyTorch).

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
    forward = strategy == "forward-mode"
    if forward:
        _check_forward_mode(create_graph, strict)
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", "jacobian")
    if forward and not vectorize:
        raise NotImplementedError(_FWD_VECTORIZE)
    inputs = _preprocess(inputs, create_graph)
    box: list[Any] = []
    g = _tuple_fn(func, "jacobian", "outputs" if forward else _OUTS, box)
    dep: list[list[bool]] = _depends(g, inputs) if strict or create_graph else []
    if strict:
        _strict_outputs(dep)
        if vectorize:
            raise RuntimeError(_STRICT_VECTORIZE)
    with set_grad_enabled(create_graph):
        jac = _jacobian_blocks(g, inputs, forward)
    if not forward and not vectorize:
        if box[-1][1]:
            raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                               f"but got {box[-1][1][0]}")
        if any(o.numel() == 0 for row in jac for o in row[:1]):
            raise RuntimeError("stack expects a non-empty TensorList")
    if create_graph:   # a block no path reaches: fresh zeros (a column, vectorized:
        # PyTorch's batched pass reaches input j through any output)
        column = [any(row[j] for row in dep) for j in range(len(inputs))]
        jac = tuple(_zeros_where(r, column if vectorize else d) for r, d in zip(jac, dep))
    if strict:
        _check_jacobian(dep, jac, create_graph)
    jac = _grad_postprocess(tuple(jac), create_graph)
    return _tuple_postprocess(jac, (box[-1][0], is_inputs_tuple))


# ------------------------------------------------------------------------------ hessian
def _scalar_fn(func: Callable[..., Any], fn_name: str) -> Callable[..., Tensor]:
    """``func`` checked to return one single-element Tensor, as a 0-d Tensor."""
    def h(*inp: Tensor) -> Tensor:
        is_out_tuple, t_out = _as_tuple(func(*inp), _OUTS, fn_name)
        _single_output(t_out, is_out_tuple, fn_name)
        return t_out[0].reshape(())
    return h


def _grad_depends(h: Callable[..., Tensor], inputs: Sequence[Tensor],
                  argnums: tuple[int, ...]) -> list[list[bool]]:
    """``dep[i][j]``: component ``i`` of the gradient of ``h`` depends on input ``j``."""
    return _depends(lambda *x: tuple(_func.grad(h, argnums)(*x)), inputs)


def _strict_hessian_prelude(h: Callable[..., Tensor], inputs: Sequence[Tensor],
                            argnums: tuple[int, ...]) -> list[list[bool]]:
    """PyTorch's strict checks before a second derivative: the output must depend on the
    inputs, and so must each component of its gradient."""
    _strict_outputs(_depends(lambda *x: (h(*x),), inputs))
    jdep = _grad_depends(h, inputs, argnums)
    for i, row in enumerate(jdep):
        if not any(row):
            raise RuntimeError(_STRICT_MESSAGES["jacobian"].format(i=i))
    return jdep


def hessian(func: Callable[..., Tensor], inputs: _Tensors, create_graph: bool = False,
            strict: bool = False, vectorize: bool = False,
            outer_jacobian_strategy: str = "reverse-mode") -> _Blocks:
    """The Hessian of the scalar function ``func`` at ``inputs``: ``compat.func.jacrev``
    (``outer_jacobian_strategy="reverse-mode"``) or ``jacfwd`` (forward over reverse) of
    its gradient ``compat.func.jacrev``.

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
    forward = outer_jacobian_strategy == "forward-mode"
    if forward:
        _check_forward_mode(create_graph, strict)
        if not vectorize:
            raise NotImplementedError(_FWD_VECTORIZE)
    inputs = _preprocess(inputs, create_graph)
    h = _scalar_fn(func, "hessian")
    argnums = tuple(range(len(inputs)))
    if strict:
        jdep = _strict_hessian_prelude(h, inputs, argnums)
        if vectorize:
            raise RuntimeError(_STRICT_VECTORIZE)
    elif create_graph:
        jdep = _grad_depends(h, inputs, argnums)
    outer = _func.jacfwd if forward else _func.jacrev
    with set_grad_enabled(create_graph):
        H = outer(_func.jacrev(h, argnums), argnums)(*inputs)
    if create_graph:
        H = tuple(_zeros_where(row, d) for row, d in zip(H, jdep))
    if strict:
        _check_jacobian(jdep, H, create_graph)   # H[i][j]: gradient i depends on input j
    H = _grad_postprocess(tuple(tuple(r) for r in H), create_graph)
    return _tuple_postprocess(H, (is_inputs_tuple, is_inputs_tuple))


# ------------------------------------------------------------------------------ vhp / hvp
def _hessian_product(func: Callable[..., Tensor], inputs: _Tensors, v: _Tensors | None,
                     create_graph: bool, strict: bool, fn_name: str
                     ) -> tuple[Tensor, _Tensors]:
    is_inputs_tuple, inputs = _as_tuple(inputs, "inputs", fn_name)
    inputs = _preprocess(inputs, create_graph)
    v = _v_or_default(v, inputs, is_inputs_tuple, create_graph, fn_name, _V_NONE_INPUT)
    v = _ones(inputs) if v is None else tuple(v)
    h = _scalar_fn(func, fn_name)
    argnums = tuple(range(len(inputs)))
    if strict:
        jdep = _strict_hessian_prelude(h, inputs, argnums)
    elif create_graph:
        jdep = _grad_depends(h, inputs, argnums)
    grad_and_value = _func.grad_and_value(h, argnums)

    def grad_fn(*x: Tensor) -> tuple[tuple[Tensor, ...], Tensor]:
        g, value = grad_and_value(*x)
        return tuple(g), value
    with set_grad_enabled(create_graph):
        if fn_name == "vhp":
            _, back, out = _func.vjp(grad_fn, *inputs, has_aux=True)
            res = back(v)
        else:
            _, res, out = _func.jvp(grad_fn, inputs, v, has_aux=True)
    if create_graph:
        n = len(inputs)
        res = _zeros_where(res, [any(jdep[i][j] for i in range(n)) if fn_name == "vhp"
                                 else any(jdep[j]) for j in range(n)])
    if strict:
        if fn_name == "vhp":
            _strict_used(jdep, _FILL_MESSAGES["double_back"])
        if create_graph:
            _strict_graph(res, "hessian")
    return _result((out,), False, tuple(res), is_inputs_tuple, create_graph)


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


def vhp(func: Callable[..., Tensor], inputs: _Tensors, v: _Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensor, _Tensors]:
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


vhp.__doc__ = ("``(func(inputs), v^H H)``: the vector-Hessian product of the scalar function "
               "``func`` at ``inputs``: the VJP of its gradient (``compat.func.vjp`` of "
               "``compat.func.grad``)." + _HP_DOC.format(name="vhp"))


def hvp(func: Callable[..., Tensor], inputs: _Tensors, v: _Tensors | None = None,
        create_graph: bool = False, strict: bool = False) -> tuple[Tensor, _Tensors]:
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


hvp.__doc__ = ("``(func(inputs), H v)``: the Hessian-vector product of the scalar function "
               "``func`` at ``inputs``: the JVP of its gradient, forward over reverse "
               "(``compat.func.jvp`` of ``compat.func.grad``); equal to ``vhp`` for twice "
               "continuously differentiable functions." + _HP_DOC.format(name="hvp"))
