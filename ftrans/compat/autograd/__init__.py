"""``ftrans.compat.autograd``: PyTorch's ``torch.autograd`` on the compat graph.

``backward`` accumulates gradients into the leaves' ``.grad``; ``grad`` returns them.
Both follow PyTorch's documentation: non-scalar outputs need explicit gradients,
``retain_graph`` defaults to ``create_graph``, saved buffers are freed after a backward
that does not retain the graph, ``inputs``/``allow_unused``/``materialize_grads`` behave
as documented.  Grad modes live in :mod:`.grad_mode`, the graph in :mod:`.graph`, the
engine in :mod:`._engine`.
"""
from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any, overload

import numpy as np

from .grad_mode import (no_grad, enable_grad, set_grad_enabled, inference_mode,
                        is_grad_enabled, is_inference_mode_enabled,
                        set_multithreading_enabled, enforce_grad_layout_policy,
                        is_multithreading_enabled)
from . import graph
from . import forward_ad  # noqa: F401
from .graph import saved_tensors_hooks  # noqa: F401
from . import anomaly_mode
from .anomaly_mode import detect_anomaly, set_detect_anomaly  # noqa: F401
from . import functional  # noqa: F401  (torch.autograd.functional)
from . import function
from .function import Function, once_differentiable  # noqa: F401
from .gradcheck import gradcheck, gradgradcheck, GradcheckError  # noqa: E402,F401
from . import profiler  # noqa: F401  (torch.autograd.profiler)
from . import _batched
from ._batched import check_batched_grad
from ._engine import run_backward, _retain
from .. import _tensor as T
from .. import _ops as O
from .._dtype import from_np
from ..types import Tensor
from .graph import GradientEdge

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "is_grad_enabled", "is_inference_mode_enabled", "graph", "forward_ad", "Variable",
           "Function",
           "function", "once_differentiable", "gradcheck", "gradgradcheck",
           "GradcheckError", "anomaly_mode", "detect_anomaly", "set_detect_anomaly"]


_TensorOrEdge = Tensor | GradientEdge
_Tensors = Tensor | GradientEdge | Sequence[Tensor | GradientEdge]


@overload
def _as_tuple(x: None) -> None: ...
@overload
def _as_tuple(x: Any) -> tuple[Any, ...]: ...


def _as_tuple(x: Any) -> tuple[Any, ...] | None:
    if x is None:
        return None
    if isinstance(x, (T.Tensor, graph.GradientEdge)):
        return (x,)
    return tuple(x)


def _input_edge(t: _TensorOrEdge) -> tuple[Any, int]:
    """The edge whose gradient ``autograd.grad``/``backward(inputs=...)`` is asked for:
    a Tensor's, or a :class:`~.graph.GradientEdge` (PyTorch's exception types)."""
    if isinstance(t, graph.GradientEdge):
        return graph.check_gradient_edge(t)
    if not isinstance(t, T.Tensor):
        raise RuntimeError(f"all inputs have to be Tensors or GradientEdges, but got "
                           f"{type(t).__name__}")
    e = T._edge(t)
    if e[0] is None:
        raise RuntimeError("One of the differentiated Tensors does not require grad")
    return e


def _out_meta(out: Any) -> tuple[Any, bool]:
    """(array or Meta with the output's shape and dtype, whether it requires grad) of an
    output: a Tensor, or a GradientEdge (its node's output; None where not known)."""
    if isinstance(out, graph.GradientEdge):
        node, nr = graph.check_gradient_edge(out)
        return graph.edge_meta(node, nr), True
    return out._data, out.requires_grad


def _make_grads(outputs: Sequence[Any], grads: Sequence[Any], create_graph: bool,
                batched: bool = False) -> list[Any]:
    """Per output: the root gradient (array, or Tensor when create_graph).  ``batched``
    (``is_grads_batched``): the leading dimension of each gradient is the batch, and the
    implicit gradient of a scalar output (``ones_like(out)``) is read as batched, as
    PyTorch reads it."""
    res: list[Any] = []
    implicit = None
    for i, (out, g) in enumerate(zip(outputs, grads)):
        od, rg = _out_meta(out)
        if od is None:  # a GradientEdge of a node whose output shape is not known
            if g is None:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs, and the shape of "
                    f"output {i} (a GradientEdge of {out.node.name()}) is not known: pass its "
                    "gradient explicitly, or get the edge with get_gradient_edge(tensor)")
            g = g if isinstance(g, T.Tensor) else T._make(np.asarray(g))
            od = graph.meta(g._data)
        if g is None:
            if not rg:
                res.append(None)
                continue
            if od.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            if od.dtype.kind not in "f":
                raise RuntimeError("grad can be implicitly created only for real scalar outputs "
                                   f"but got {out.dtype}")
            a = np.ones(od.shape, od.dtype)
            if not batched:
                res.append(T._make(a) if create_graph else a)
                continue
            g = implicit = T._make(a)
        if not isinstance(g, T.Tensor):
            g = T._make(np.asarray(g, dtype=od.dtype))
        gd = g._data
        if batched:
            check_batched_grad(i, gd, od, g is implicit)
        elif gd.shape != od.shape:
            raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of "
                               f"{T.Size(gd.shape)!r} and output[{i}] has a shape of "
                               f"{T.Size(od.shape)!r}.")
        if (gd.dtype.kind == "c") != (od.dtype.kind == "c"):
            raise RuntimeError(f"For complex Tensors, both grad_output and output are required to "
                               f"have the same dtype. Mismatch in dtype: grad_output[{i}] has a "
                               f"dtype of {g.dtype} and output[{i}] has a dtype of "
                               f"{from_np(od.dtype)}.")
        if create_graph:
            res.append(g if gd.dtype == od.dtype else O._convert(g, od.dtype))
        else:
            res.append(gd if gd.dtype == od.dtype else gd.astype(od.dtype))
    return res


def _root_edges(outputs: Sequence[_TensorOrEdge], grads: Sequence[Any]
                ) -> tuple[list[Any], list[Any]]:
    roots, rgrads = [], []
    for i, (t, g) in enumerate(zip(outputs, grads)):
        e = graph.check_gradient_edge(t) if isinstance(t, graph.GradientEdge) else T._edge(t)
        if e[0] is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have "
                               "a grad_fn")
        roots.append(e)
        rgrads.append(g)
    return roots, rgrads


def backward(tensors: _Tensors,
             grad_tensors: Tensor | Sequence[Tensor | None] | None = None,
             retain_graph: bool | None = None, create_graph: bool = False,
             grad_variables: Tensor | Sequence[Tensor | None] | None = None,
             inputs: _Tensors | None = None) -> None:
    """Accumulate the gradients of ``tensors`` into the leaves' ``.grad``.

    ``torch.autograd.backward``.

    ``tensors`` and ``inputs`` may hold :class:`~.graph.GradientEdge` objects
    (``get_gradient_edge(t)``), as in PyTorch 2.13: a leaf's edge accumulates into its
    ``.grad``, a non-leaf's only runs the graph down to it (nothing is retained).

    Parameters
    ----------
    tensors : Tensor, GradientEdge or sequence of them
        The roots of the backward pass.
    grad_tensors : Tensor or sequence of (Tensor or None), optional
        The gradient of each root (its shape); None for a scalar root (ones).
    retain_graph : bool, optional
        Keep the saved buffers for another backward; defaults to ``create_graph``.
    create_graph : bool, optional
        Record the backward pass, so that the gradients can be differentiated again.
    grad_variables : Tensor or sequence of (Tensor or None), optional
        Deprecated name of ``grad_tensors``.
    inputs : Tensor, GradientEdge or sequence of them, optional
        Accumulate only into these (non-empty); all leaves by default.

    Raises
    ------
    RuntimeError
        For an input that is neither a Tensor nor a GradientEdge, an edge whose node is not
        a Node, a non-scalar root without a gradient, a root that does not require grad,
        empty ``inputs``, or both ``grad_tensors`` and ``grad_variables``.
    """
    if grad_variables is not None:
        if grad_tensors is not None:
            raise RuntimeError("'grad_tensors' and 'grad_variables' (deprecated) arguments both "
                               "passed to backward(). Please only use 'grad_tensors'.")
        grad_tensors = grad_variables
    if inputs is not None:
        inputs = _as_tuple(inputs)
        if len(inputs) == 0:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors)
    if grads is None:
        grads = (None,) * len(outputs)
    if len(grads) != len(outputs):
        raise RuntimeError(f"got {len(outputs)} tensors and {len(grads)} gradients")
    if retain_graph is None:
        retain_graph = create_graph
    roots, rgrads = _root_edges(outputs, _make_grads(outputs, grads, create_graph))
    capture = execute = None
    nonleaf = []
    if inputs is not None:
        capture, execute = [], []
        for t in inputs:
            e = _input_edge(t)
            if isinstance(e[0], graph.AccumulateGrad):
                execute.append(e)
            else:  # a non-leaf Tensor's gradient is retained (a GradientEdge's is not kept)
                capture.append(e)
                nonleaf.append(t if isinstance(t, T.Tensor) else None)
    if create_graph:
        warnings.warn(
            "Using backward() with create_graph=True will create a reference cycle between the "
            "parameter and its gradient which can cause a memory leak. We recommend using "
            "autograd.grad when creating the graph to avoid this. If you have to use this "
            "function, make sure to reset the .grad fields of your parameters to None after use "
            "to break the cycle and avoid the leak.", UserWarning, stacklevel=3)
    res = run_backward(roots, rgrads, retain_graph, create_graph, capture, execute)
    if nonleaf and res is not None:   # (res: the captured gradients, as nonleaf is set)
        for t, g in zip(nonleaf, res):
            if g is not None and t is not None:
                _retain(t, g, create_graph)


def grad(outputs: _Tensors, inputs: _Tensors,
         grad_outputs: Tensor | Sequence[Tensor | None] | None = None,
         retain_graph: bool | None = None, create_graph: bool = False, only_inputs: bool = True,
         allow_unused: bool | None = None, is_grads_batched: bool = False,
         materialize_grads: bool = False) -> tuple[Tensor, ...]:
    """Gradients of ``outputs`` with respect to ``inputs`` (``torch.autograd.grad``).

    Returned as a tuple; nothing is accumulated into ``.grad``.  ``outputs`` and
    ``inputs`` may hold :class:`~.graph.GradientEdge` objects (PyTorch 2.13): the gradient
    flowing into that edge is returned, with the shape and dtype of the tensor the edge
    was taken from.  An output edge's shape is known when the edge comes from
    ``get_gradient_edge`` (or the node saved its output); otherwise its gradient must be
    passed in ``grad_outputs``.

    Parameters
    ----------
    outputs : Tensor, GradientEdge or sequence of them
        The differentiated outputs.
    inputs : Tensor, GradientEdge or sequence of them
        The inputs to differentiate with respect to (at least one).
    grad_outputs : Tensor or sequence of (Tensor or None), optional
        The gradient of each output (the vector of the vector-Jacobian product); None for
        a scalar output (ones).
    retain_graph : bool, optional
        Keep the saved buffers for another backward; defaults to ``create_graph``.
    create_graph : bool, optional
        Record the backward pass, so that the gradients can be differentiated again.
    only_inputs : bool, optional
        Deprecated and ignored (PyTorch's).
    allow_unused : bool, optional
        Return None for an input that the outputs do not depend on (otherwise an error);
        defaults to ``materialize_grads``.
    is_grads_batched : bool, optional
        The leading dimension of every grad_output is a batch, computed in one backward
        pass under ``ftrans.vmap``; each gradient then has that batch dimension first.
    materialize_grads : bool, optional
        Return zeros instead of None for unused inputs.

    Returns
    -------
    tuple of Tensor
        One gradient per input, with the input's shape and dtype (None where unused and
        ``allow_unused``).

    Raises
    ------
    RuntimeError
        For an unused input without ``allow_unused``, an input that does not require grad,
        a non-scalar output without a gradient, mismatched shapes, or
        ``materialize_grads`` with an unused edge input (its shape is unknown).
    ValueError
        For ``materialize_grads=True`` with ``allow_unused=False``.

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> x = torch.tensor([1.0, 2.0], requires_grad=True)
    >>> (g,) = torch.autograd.grad((x ** 2).sum(), x)
    >>> g
    tensor([2., 4.])
    """
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    if allow_unused is None:
        allow_unused = materialize_grads
    outs = _as_tuple(outputs)
    ins = _as_tuple(inputs)
    if not ins:
        raise RuntimeError("grad requires at least one input (got an empty sequence)")
    gouts = _as_tuple(grad_outputs)
    if gouts is None:
        gouts = (None,) * len(outs)
    if len(gouts) != len(outs):
        raise RuntimeError(f"grad_outputs has {len(gouts)} elements, but outputs has "
                           f"{len(outs)}")
    if retain_graph is None:
        retain_graph = create_graph
    edges = [_input_edge(t) for t in ins]
    if is_grads_batched:
        res = _batched_grad(outs, ins, edges, gouts, retain_graph, create_graph)
    else:
        roots, rgrads = _root_edges(outs, _make_grads(outs, gouts, create_graph))
        res = run_backward(roots, rgrads, retain_graph, create_graph, capture=edges)
    final: list[Any] = []
    if materialize_grads and any(g is None and isinstance(t, graph.GradientEdge)
                                 for t, g in zip(ins, res)):
        raise RuntimeError("materialize_grads cannot be used when the given input is a "
                           "GradientEdge (its shape is not known): pass the tensor instead")
    for i, (t, g) in enumerate(zip(ins, res)):
        if g is None:
            if not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have "
                                   "been used in the graph. Set allow_unused=True if this is the "
                                   "desired behavior.")
            # (as in PyTorch, unbatched zeros even with is_grads_batched)
            final.append(T._make(np.zeros_like(t._data)).requires_grad_(create_graph)
                         if materialize_grads else None)
        elif create_graph:
            final.append(g)
        else:
            if isinstance(t, graph.GradientEdge):
                m = graph.edge_meta(*edges[i])
                dt = g.dtype if m is None else m.dtype
            else:
                dt = t._data.dtype
            final.append(T._make(np.array(g, dtype=dt, copy=True)))
    return tuple(final)


def _batched_grad(outs: Sequence[_TensorOrEdge], ins: Sequence[_TensorOrEdge],
                  edges: list[Any], gouts: Sequence[Any], retain_graph: bool,
                  create_graph: bool) -> list[Any]:
    """``is_grads_batched``: the gradients for every slice of the leading (batch) dimension
    of ``grad_outputs``, batch first -- arrays, or Tensors when ``create_graph``; None
    where no gradient arrived.

    One engine pass under ``ftrans.vmap`` (see :mod:`._batched`), as PyTorch runs its
    engine under vmap.  Graphs that cannot run batched -- ``create_graph=True``, hooks on
    the way, a custom ``autograd.Function`` node -- run one backward per slice and stack
    the results (same values, slower).  Raises ``ValueError`` for a 0-d grad_output or
    batch sizes that differ, ``IndexError`` for an empty batch, ``RuntimeError`` for a
    per-example shape that differs from its output's.
    """
    rg = _make_grads(outs, gouts, True, batched=True)
    sizes = [g.shape[0] for g in rg if g is not None]
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension "
                         "(is_grads_batched=True: every grad_output needs the same batch size)")
    roots, rgrads = _root_edges(outs, rg)
    ran = None if create_graph else _batched.batchable(roots, edges)
    if ran is not None:
        bres = _batched.run_batched(roots, [g._data for g in rgrads], edges, ran, retain_graph)
        if bres is not None:
            return bres
    n = sizes[0]
    per = [grad(outs, ins, tuple(g[k] for g in rg),
                retain_graph=True if k < n - 1 else retain_graph, create_graph=create_graph,
                allow_unused=True) for k in range(n)]
    res: list[Any] = []
    for j in range(len(ins)):
        col = [p[j] for p in per]
        if col[0] is None:
            res.append(None)
        else:
            res.append(O.stack(col) if create_graph else np.stack([c._data for c in col]))
    return res


def Variable(tensor: Tensor, requires_grad: bool = False, volatile: bool = False) -> Tensor:
    """Deprecated PyTorch API (``torch.autograd.Variable``): returns ``tensor`` itself.

    Parameters
    ----------
    tensor : Tensor
        The tensor.
    requires_grad : bool, optional
        Make ``tensor`` require grad (in place).
    volatile : bool, optional
        Ignored (PyTorch's removed volatile flag).

    Returns
    -------
    Tensor
        ``tensor``, with ``requires_grad`` set where asked.
    """
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor
