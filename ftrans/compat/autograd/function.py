"""``torch.autograd.Function``: user-defined operations with their own backward formula.

A subclass defines ``forward`` and ``backward`` as static methods, either in the classic
style ``forward(ctx, *args, **kwargs)`` or in the newer style ``forward(*args)`` plus
``setup_context(ctx, inputs, output)``; ``MyFn.apply(*args)`` runs it.  As in PyTorch
(``torch.autograd`` reference, "Function"; "Extending torch.autograd"):

* ``forward`` runs with grad mode off.  When grad mode is on and a tensor argument
  requires grad, the outputs get one shared node, an instance of ``<Name>Backward`` --
  which *is* the ``ctx`` object the static methods received (attributes set on ``ctx``
  in ``forward`` are readable on ``out.grad_fn``).  The node has one edge per *tensor*
  argument (``next_functions``) and one gradient slot per output.
* ``ctx.save_for_backward(*tensors)`` saves inputs, outputs or intermediates (or None);
  ``ctx.saved_tensors`` unpacks them, raising ``RuntimeError`` if one was modified in
  place since (version counters) or if the graph was freed.  Saved-tensor hooks
  (``torch.autograd.graph.saved_tensors_hooks``) apply to them.
* ``ctx.mark_dirty(*tensors)``: inputs modified in place by ``forward``; they must be
  returned, and the returned object is the input itself with its history rewritten.
* ``ctx.mark_non_differentiable(*outputs)``: those outputs do not require grad;
  ``backward`` still receives a (zero) gradient for them.  Integer outputs are never
  differentiable.
* ``ctx.set_materialize_grads(False)``: outputs that got no gradient are passed to
  ``backward`` as None instead of zeros.
* ``backward(ctx, *grad_outputs)`` returns one gradient per ``forward`` argument (None
  for non-tensor arguments and for inputs that need none; trailing extra Nones are
  allowed).  A wrong count, a non-None gradient for a non-tensor argument, a gradient
  whose shape cannot be summed to the input's shape -> ``RuntimeError`` (PyTorch's
  messages); gradients are converted to the input's dtype and summed over broadcast
  dimensions.  ``backward`` runs with grad mode equal to ``create_graph``, so a
  backward written in differentiable compat operations supports double backward.
* ``jvp(ctx, *tangents)`` (optional) gives forward-mode AD
  (``torch.autograd.forward_ad``) its output tangents.

Under ftrans's functional transforms (``torch.func``'s counterparts; the Function must use
the ``setup_context`` style, as ``torch.func`` requires), ``apply`` takes ftrans values
(arrays, tracers) for its tensor arguments and returns ftrans values:

* ``ftrans.vmap``: the Function's ``vmap`` staticmethod, or ``generate_vmap_rule = True``
  (a loop over the batch) -- see ``_apply_batched``;
* ``ftrans.grad``/``vjp``/``value_and_grad``/``jacrev``: ``backward`` (through
  ``ftrans.custom_vjp``'s primitive); ``ftrans.jvp``/``jacfwd``: the ``jvp`` staticmethod
  (through ``ftrans.custom_jvp``'s) -- see ``_apply_transformed``.  One differentiation
  level only (no ``grad`` of ``grad``, no ``hessian``): forward, backward and jvp compute
  on concrete arrays.
"""
from __future__ import annotations

import contextlib
import functools
import inspect

import numpy as np

from ...core import float0
from ...core.trace import Tracer, _ctx
from ...transforms.custom import custom_jvp_call_p, custom_vjp_call_p
from ...transforms.jvp import JVPTrace
from ...transforms.vjp import VJPTrace
from ...transforms.vmap import BatchTrace, BatchTracer
from .. import _tensor as T
from .. import _ops as O
from .grad_mode import _tls
from . import anomaly_mode as _AM
from . import forward_ad as _FW
from . import graph as G

__all__ = ["Function", "FunctionCtx", "BackwardCFunction", "once_differentiable",
           "InplaceFunction"]

_NO_JVP = ("You must implement the jvp function for custom autograd.Function to use it with "
           "forward mode AD.")

_NULL = contextlib.nullcontext()


class FunctionCtx:
    """The methods ``forward``/``setup_context`` call on ``ctx``."""

    def save_for_backward(self, *tensors):
        """Save tensors (inputs, outputs or intermediates; None allowed) for ``backward``,
        where ``ctx.saved_tensors`` returns them.  Call at most once per forward."""
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, T.Tensor):
                raise TypeError(f"save_for_backward can only save variables, but argument {i} "
                                f"is of type {type(t).__name__}")
        self.to_save = tensors

    def save_for_forward(self, *tensors):
        """Save tensors for ``jvp`` (read back as ``ctx.saved_tensors`` there)."""
        self.saved_for_forward = tensors

    def mark_dirty(self, *args):
        """Mark input tensors that ``forward`` modified in place; they must be returned."""
        self.dirty_tensors = args

    def mark_non_differentiable(self, *args):
        """Mark outputs that are not differentiable (they will not require grad)."""
        self.non_differentiable = args

    def set_materialize_grads(self, value: bool):
        """Whether gradients that did not arrive are passed to ``backward`` as zeros
        (default True) or as None."""
        self.materialize_grads = bool(value)

    def mark_shared_storage(self, *pairs):
        raise RuntimeError("mark_shared_storage is deprecated. Tensors with shared storages "
                           "are automatically tracked. Note that calls to `set_()` are not "
                           "tracked")


_ContextMethodMixin = FunctionCtx  # PyTorch's older name


class BackwardCFunction(G.Node, FunctionCtx):
    """The graph node of one application of a custom Function; also its ``ctx``."""

    _fast = False
    _custom = True
    _forward_cls = None
    _outsv = None  # saved outputs live in ``_saved`` (what CopySlices/_rebase read)

    def name(self):
        return type(self).__name__

    # ---------------------------------------------------------------- saved tensors
    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, unpacked (``RuntimeError`` if one
        was modified in place since it was saved, or after the graph was freed)."""
        if self.__dict__.get("_in_jvp"):  # in jvp: what save_for_forward saved
            return tuple(self.__dict__.get("saved_for_forward", ()))
        s = self._saved
        if s is G.FREED:
            raise G.freed_error()
        if s is None:  # not recorded (or inside forward): the objects themselves
            return tuple(getattr(self, "to_save", ()))
        return tuple(self._unpack(k) for k in range(len(s)))

    saved_variables = saved_tensors

    def _unpack(self, k):
        e = self._saved[k]
        if e is None:
            return None
        t = G.unpack(e[1], self, True)
        if e[0]:  # an output of this node: connect it as output e[2]
            t._onr = e[2]
        return t

    @property
    def _raw_saved_tensors(self):
        s = self._saved
        if s is G.FREED:
            raise G.freed_error()
        return tuple(None if e is None else G.SavedTensor(self, k)
                     for k, e in enumerate(s or ()))

    def _get_saved(self, k):
        s = self._saved
        return G.FREED if s is G.FREED else s[k][1]

    def _set_saved(self, k, v):
        e = self._saved[k]
        self._saved[k] = (e[0], v, e[2])

    def _free(self):
        if self._saved:
            self._saved = G.FREED

    # ---------------------------------------------------------------- backward
    def apply(self, *grads):
        """Call the user's ``backward`` on this context (no checks), as PyTorch does."""
        return self._forward_cls.backward(self, *grads)

    # the interface of an in-place operation's node that CopySlices wraps
    def _claim(self, keep):
        self._keep = keep
        return None, None

    def _apply(self, ct, saved, outsv, wrap):
        if wrap is None:
            return self._call_backward([ct], self._keep, False)
        res = self._call_backward([ct.tensor], self._keep, True)  # ct: a recording tracer
        return [None if r is None else wrap(r) for r in res]

    def _call_backward(self, buf, keep, cg):
        """Run ``backward`` on the output gradients ``buf`` (arrays, or Tensors when
        ``cg``); returns one gradient per edge (tensor argument)."""
        if self._saved is G.FREED:
            raise G.freed_error()
        grads = []
        mat = self.materialize_grads
        for g, meta in zip(buf, self._out_meta):
            if g is None:
                if mat and meta is not None:
                    grads.append(T._make(np.zeros(meta[0], meta[1])))
                else:
                    grads.append(None)
            else:
                grads.append(g if cg else T._make(g))
        prev = _tls.grad
        _tls.grad = cg
        try:
            res = self._forward_cls.backward(self, *grads)
        finally:
            _tls.grad = prev
        res = self._check_grads(res, cg)
        if not keep:  # freed only on success: a failing backward can be rerun (PyTorch)
            self._free()
        return res

    def _check_grads(self, res, cg):
        if not isinstance(res, tuple):
            res = (res,)
        is_t = self._is_tensor
        n_in = len(is_t)
        name = self.name()
        if len(res) != n_in:
            if len(res) < n_in or any(r is not None for r in res[n_in:]):
                raise RuntimeError(f"function {name} returned an incorrect number of gradients "
                                   f"(expected {n_in}, got {len(res)})")
            res = res[:n_in]
        outs = []
        k = -1
        for j, r in enumerate(res):
            if not is_t[j]:
                if r is not None:
                    raise RuntimeError(f"function {name} returned a gradient different than None "
                                       f"at position {j + 1}, but the corresponding forward "
                                       "input was not a Variable")
                continue
            k += 1
            if r is None or not self.needs_input_grad[j]:
                if r is not None and not isinstance(r, T.Tensor):
                    raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
                outs.append(None)
                continue
            if not isinstance(r, T.Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(r).__name__})")
            shape, dtype = self._in_meta[k]
            r = _fit_grad(r, shape, dtype, name, k, cg)
            outs.append(r if cg else r._data)
        return outs


def _fit_grad(r, shape, dtype, name, k, cg):
    """``r`` summed over the dimensions it was broadcast along and converted to ``dtype``
    (PyTorch's validation of a custom backward's outputs)."""
    rs = r._data.shape
    if rs != tuple(shape):
        ok = len(rs) >= len(shape) and all(
            s == 1 or s == q for s, q in zip(shape[::-1], rs[::-1]))
        if not ok:
            raise RuntimeError(f"Function {name} returned an invalid gradient at index {k} - got "
                               f"{list(rs)} but expected shape compatible with {list(shape)}")
        lead = len(rs) - len(shape)
        axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(shape)
                                          if s == 1 and rs[lead + i] != 1)
        if cg:
            r = O.sum(r, dim=axes) if axes else r
            r = O.reshape(r, tuple(shape))
        else:
            r = T._make(r._data.sum(axis=axes).reshape(shape))
    if r._data.dtype != dtype:
        if r._data.dtype.kind == "c" and np.dtype(dtype).kind != "c":
            r = O.real(r)  # the gradient of a real input is real (autograd notes)
        if r._data.dtype != dtype:
            r = O._convert(r, np.dtype(dtype)) if cg else T._make(r._data.astype(dtype))
    return r


class FunctionMeta(type):
    """Creates ``<Name>Backward``, the node class of each Function subclass."""

    def __init__(cls, name, bases, attrs):
        bcls = type(name + "Backward", (BackwardCFunction,), {"_forward_cls": cls})
        bcls.__module__ = cls.__module__
        bcls.__qualname__ = name + "Backward"
        cls._backward_cls = bcls
        super().__init__(name, bases, attrs)


class Function(FunctionCtx, metaclass=FunctionMeta):
    """Base class of user-defined differentiable operations (see the module docstring).

    Example (the reference's)::

        class Exp(Function):
            @staticmethod
            def forward(ctx, i):
                result = i.exp()
                ctx.save_for_backward(result)
                return result

            @staticmethod
            def backward(ctx, grad_output):
                result, = ctx.saved_tensors
                return grad_output * result

        y = Exp.apply(x)
    """

    generate_vmap_rule = False

    def __init__(self, *args, **kwargs):
        import warnings
        warnings.warn(f"{type(self)} should not be instantiated. Methods on autograd functions "
                      "are all static, so you should invoke them on the class itself. "
                      "Instantiating an autograd function will raise an error in a future "
                      "version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args, **kwargs):
        raise RuntimeError("Legacy autograd function with non-static forward method is "
                           "deprecated. Please use new-style autograd function with static "
                           "forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    @staticmethod
    def forward(*args, **kwargs):
        """Compute the outputs (override)."""
        raise NotImplementedError("You must implement the forward function for custom "
                                  "autograd.Function.")

    @staticmethod
    def setup_context(ctx, inputs, output):
        """Save what ``backward`` needs when ``forward`` does not take ``ctx`` (override)."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx, *grad_outputs):
        """Gradients of the inputs from those of the outputs (override)."""
        raise NotImplementedError("You must implement either the backward or vjp method for "
                                  "your custom autograd.Function to use it with backward "
                                  "mode AD.")

    vjp = backward

    @staticmethod
    def jvp(ctx, *grad_inputs):
        """Output tangents from input tangents, for forward-mode AD (override)."""
        raise NotImplementedError(_NO_JVP)

    @staticmethod
    def vmap(info, in_dims, *args):
        """Batching rule: ``(outputs, out_dims)`` (override, or set
        ``generate_vmap_rule = True``)."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either "
                                  "override the vmap staticmethod or set generate_vmap_rule=True.")

    @classmethod
    def apply(cls, *args, **kwargs):
        """Run the operation on ``args`` (recording one node when grad mode is on and a
        tensor argument requires grad)."""
        custom_setup = cls.__dict__.get("_custom_setup")
        if custom_setup is None:  # cached per class (inspect is slow)
            custom_setup = _overrides(cls, "setup_context")
            type.__setattr__(cls, "_custom_setup", custom_setup)
        if custom_setup:
            args = _bind_args(cls.forward, args, kwargs)
            kwargs = {}
        for a in args:
            if isinstance(a, Tracer):
                return _apply_traced(cls, args, custom_setup)
        return _apply(cls, args, kwargs, custom_setup)


def _overrides(cls, name):
    f = inspect.getattr_static(cls, name)
    base = inspect.getattr_static(Function, name)
    return f is not base


def _bind_args(fn, args, kwargs):
    if not kwargs:
        return args
    sig = inspect.signature(fn)
    b = sig.bind(*args, **kwargs)
    b.apply_defaults()
    return tuple(b.args)


def _new_ctx(cls):
    ctx = object.__new__(cls._backward_cls)
    ctx._next = ()
    ctx._seq = next(G._seq)
    ctx._hk = None
    ctx._saved = None
    ctx.to_save = ()
    ctx.dirty_tensors = ()
    ctx.non_differentiable = ()
    ctx.materialize_grads = True
    if _AM._enabled:
        _AM.record(ctx)
    return ctx


def _apply(cls, args, kwargs, custom_setup, ctx=None):
    Tensor = T.Tensor
    ctx = _new_ctx(cls) if ctx is None else ctx
    is_t = tuple(isinstance(a, Tensor) for a in args)
    needs = tuple(t and T._requires_grad(a) for t, a in zip(is_t, args))
    recording = _tls.grad and any(needs)
    ctx.needs_input_grad = needs
    ctx._is_tensor = is_t
    dual = _FW._active() and any(t and _FW._tangent_of(a) is not None
                                 for a, t in zip(args, is_t))
    prev = _tls.grad
    _tls.grad = False
    try:
        # forward sees the primals only: the output tangents come from ``jvp``
        with _FW._suspended() if dual else _NULL:
            if custom_setup:
                output = cls.forward(*args)
                cls.setup_context(ctx, args, output)
            else:
                output = cls.forward(ctx, *args, **kwargs)
    finally:
        _tls.grad = prev
    output = _wrap_outputs(ctx, args, is_t, output, recording)
    if dual:
        _forward_grads(cls, ctx, args, is_t, output, _FW)
    return output


def _wrap_outputs(ctx, args, is_t, output, recording):
    """Connect the outputs to the node ``ctx`` (see the module docstring)."""
    Tensor = T.Tensor
    is_tuple = isinstance(output, tuple)
    outs = list(output) if is_tuple else [output]
    dirty = {id(t) for t in ctx.dirty_tensors}
    nondiff = {id(t) for t in ctx.non_differentiable}
    out_ids = {id(o) for o in outs if isinstance(o, Tensor)}
    if not dirty <= out_ids:
        raise RuntimeError("Some elements marked as dirty during the forward method were not "
                           "returned as output. The inputs that are modified inplace must all "
                           "be outputs of the Function.")
    inputs = {id(a) for a, t in zip(args, is_t) if t}
    if recording:  # the edges first: a dirty input's history is rewritten below
        ctx._next = tuple(T._edge(a) for a, t in zip(args, is_t) if t)
        ctx._needs = tuple(n for n, t in zip(ctx.needs_input_grad, is_t) if t)
        ctx._nout = len(outs)
    seen = set()
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            continue
        oid = id(o)
        if oid in dirty and oid not in seen:
            seen.add(oid)
            o._vc[0] += 1
            if recording:
                _rebase_dirty(ctx, o, i, args, is_t)
            continue
        if oid in inputs or oid in seen:
            o = outs[i] = _alias(o)  # an input returned as is: a view of it
        seen.add(oid)
        if (recording and oid not in nondiff and o._data.dtype.kind in "fc"):
            o._grad_fn = ctx
            o._onr = i
    if recording:
        ctx._out_meta = tuple((o._data.shape, o._data.dtype) if isinstance(o, Tensor) else None
                              for o in outs)
        ctx._in_meta = tuple((a._data.shape, a._data.dtype)
                             for a, t in zip(args, is_t) if t)
        _save(ctx, outs)
    return tuple(outs) if is_tuple else outs[0]


def _rebase_dirty(ctx, o, i, args, is_t):
    """``o`` (output ``i``) was modified in place by ``forward``: its history becomes
    ``ctx`` -- for a view, through a CopySlices node on its base, as for the built-in
    in-place operations (this needs a single-output Function)."""
    x = o._x
    if x is not None and x.base is not None and not x.nograd_view:
        if ctx._nout != 1:
            raise NotImplementedError(
                "ctx.mark_dirty on a view in a Function with several outputs is not supported "
                "by ftrans.compat: clone() the view before calling the Function, or return "
                "one output")
        O._check_inplace(o)
        k = [id(a) for a, t in zip(args, is_t) if t].index(id(o))
        O._rebase(o, ctx, k)
        return
    if o._rg and o._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad has been used in an in-place "
                           "operation.")
    old, old_nr = o._grad_fn, o._onr
    o._grad_fn = ctx
    o._onr = i
    O._move_retains(o, old, old_nr, ctx)


def _alias(t):
    """A view of ``t`` with the same shape (what a Function returns for an input)."""
    prev = _tls.grad
    _tls.grad = False
    try:
        v = O.view_as(t, t)
    finally:
        _tls.grad = prev
    x = v._x
    x.nograd_view = False
    x.view_ver = v._vc[0]
    return v


def _save(ctx, outs):
    """Pack ``ctx.to_save``: outputs of the node are saved without a reference to the
    output object (as PyTorch does, to avoid a cycle), inputs and intermediates by
    reference; entries are ``(is_output, saved value, output_nr)``."""
    pos = {}
    for i, o in enumerate(outs):
        if isinstance(o, T.Tensor) and o._grad_fn is ctx:
            pos.setdefault(id(o), i)
    saved = []
    for t in ctx.to_save:
        if t is None:
            saved.append(None)
        elif id(t) in pos:
            saved.append((True, G.save_out(t), pos[id(t)]))
        else:
            saved.append((False, G.save(t, t._data), 0))
    ctx._saved = saved


def _forward_grads(cls, ctx, args, is_t, output, forward_ad):
    """Forward-mode AD through the Function: ``jvp(ctx, *tangents)``."""
    tangents = [forward_ad._tangent_of(a) if t else None for a, t in zip(args, is_t)]
    if all(t is None for t in tangents):
        return
    tans = [None if t is None else T._make(t) for t in tangents]
    for k, (a, t) in enumerate(zip(args, is_t)):
        if t and tans[k] is None and a._data.dtype.kind in "fc":
            tans[k] = T._make(np.zeros(a._data.shape, a._data.dtype))
    ctx._in_jvp = True
    prev = _tls.grad
    _tls.grad = False
    try:
        res = cls.jvp(ctx, *tans)
    finally:
        _tls.grad = prev
        ctx._in_jvp = False
    outs = output if isinstance(output, tuple) else (output,)
    res = res if isinstance(res, tuple) else (res,)
    if len(res) != len(outs):
        raise RuntimeError(f"{cls.__name__}.jvp returned {len(res)} tangents for {len(outs)} "
                           "outputs: return one tangent (or None) per output of forward")
    nondiff = {id(t) for t in ctx.non_differentiable}
    for o, r in zip(outs, res):
        if r is None or not isinstance(o, T.Tensor) or id(o) in nondiff:
            continue
        if not isinstance(r, T.Tensor) or r._data.shape != o._data.shape:
            raise RuntimeError(f"{cls.__name__}.jvp returned a tangent of shape "
                               f"{getattr(r, 'shape', None)} for an output of shape "
                               f"{list(o._data.shape)}: tangents must have the output's shape")
        forward_ad._set_tangent(o, r._data.astype(o._data.dtype, copy=False))


# ------------------------------------------------------------------ under ftrans.vmap
class VmapInfo:
    """What a Function's ``vmap`` staticmethod is told about the batch: ``batch_size``
    and ``randomness`` (always ``"error"``: ftrans.vmap has no random primitives)."""

    __slots__ = ("batch_size", "randomness")

    def __init__(self, batch_size, randomness="error"):
        self.batch_size = batch_size
        self.randomness = randomness

    def __repr__(self):
        return f"VmapInfo(batch_size={self.batch_size}, randomness='{self.randomness}')"


_FUNC_DOC = "For more details, please see https://pytorch.org/docs/main/notes/extending.func.html"


def _apply_traced(cls, args, custom_setup):
    """``cls.apply`` with ftrans tracers among ``args``: by the current trace, under
    ``ftrans.vmap`` (``_apply_batched``) or a differentiation transform
    (``_apply_transformed``).

    Raises RuntimeError (PyTorch's message) when the Function does not use the
    ``setup_context`` style, NotImplementedError (PyTorch's message) for forward mode
    without a ``jvp`` staticmethod, and NotImplementedError under other transforms."""
    if not custom_setup:
        raise RuntimeError("In order to use an autograd.Function with functorch transforms "
                           "(vmap, grad, jvp, jacrev, ...), it must override the setup_context "
                           "staticmethod. " + _FUNC_DOC)
    tr = _ctx.trace
    if isinstance(tr, BatchTrace):
        return _apply_batched(cls, args)
    if isinstance(tr, JVPTrace) and not _overrides(cls, "jvp") and any(
            isinstance(a, Tracer) and a._trace is tr for a in args):
        raise NotImplementedError(_NO_JVP)
    if isinstance(tr, (VJPTrace, JVPTrace)):
        return _apply_transformed(cls, args, isinstance(tr, JVPTrace))
    raise NotImplementedError(
        f"{cls.__name__}.apply got a value traced by ftrans.{tr.name} "
        f"({type(tr).__name__}): a compat autograd.Function supports ftrans.vmap, "
        "grad/vjp/value_and_grad/jacrev and jvp/jacfwd only; write the operation with "
        "ftrans.custom_vjp or ftrans.custom_jvp for other transforms")


def _no_vmap_rule(cls):
    return RuntimeError(f"You tried to vmap over {cls.__name__}, but it does not have vmap "
                        "support. Please override and implement the vmap staticmethod or "
                        "set generate_vmap_rule=True. " + _FUNC_DOC)


def _apply_batched(cls, args):
    """``cls.apply`` on values batched by ``ftrans.vmap`` (``BatchTracer``s of the current
    trace): the Function's ``vmap`` staticmethod gets compat Tensors of the whole batched
    arrays and the batch dimension of each argument (``in_dims``, None for unbatched ones)
    and returns ``(outputs, out_dims)``; with ``generate_vmap_rule = True`` and no
    ``vmap`` rule, the Function runs once per batch element and the results are stacked
    along dimension 0.  Outputs are ftrans values: arrays, or BatchTracers of the trace.

    Raises RuntimeError (PyTorch's messages) without a batching rule or for a malformed
    ``(output, out_dims)``, and NotImplementedError when the batched values are not
    concrete arrays (nested vmaps, or ``grad``/``jvp`` around ``vmap``: ``ftrans.grad(
    ftrans.vmap(f))`` is not supported, ``ftrans.vmap(ftrans.grad(f))`` is)."""
    tr = _ctx.trace
    in_dims, phys = [], []
    for i, a in enumerate(args):
        if isinstance(a, Tracer):
            if type(a) is not BatchTracer or a._trace is not tr or \
                    not isinstance(a.val, np.ndarray):
                outer = a.val if type(a) is BatchTracer and a._trace is tr else a
                what = (f"ftrans.{outer._trace.name}" if isinstance(outer, Tracer)
                        else type(outer).__name__)
                raise NotImplementedError(
                    f"{cls.__name__}.apply: argument {i} is traced by {what} "
                    "around this ftrans.vmap (nested vmaps, or grad/jvp of vmap); a compat "
                    "autograd.Function supports a single ftrans.vmap over concrete arrays: "
                    "put the vmap outside (ftrans.vmap(ftrans.grad(f)) works)")
            in_dims.append(a.bdim)
            phys.append(T._make(a.val))
        else:
            in_dims.append(None)
            phys.append(T._make(a) if isinstance(a, np.ndarray) else a)
    in_dims = tuple(in_dims)
    if _overrides(cls, "vmap"):
        res = cls.vmap(VmapInfo(tr.size), in_dims, *phys)
        if not (isinstance(res, tuple) and len(res) == 2):
            raise RuntimeError(f"The autograd.Function's vmap staticmethod must return an "
                               f"(output, out_dims) tuple, got {type(res).__name__}. "
                               + _FUNC_DOC)
        out, out_dims = res
    elif cls.generate_vmap_rule:
        out, out_dims = _loop_rule(cls, phys, in_dims, tr.size)
    else:
        raise _no_vmap_rule(cls)
    single = not isinstance(out, tuple)
    outs = (out,) if single else out
    if isinstance(out_dims, int) or out_dims is None:
        out_dims = (out_dims,) * len(outs)
    out_dims = tuple(out_dims) if isinstance(out_dims, (tuple, list)) else out_dims
    if not isinstance(out_dims, tuple) or len(out_dims) != len(outs):
        raise RuntimeError(f"The autograd.Function's vmap staticmethod returned an incompatible "
                           f"(output, out_dims) tuple. Expected out_dims={out_dims} to be "
                           f"compatible with the structure of `output` ({len(outs)} outputs). "
                           + _FUNC_DOC)
    res = []
    for o, d in zip(outs, out_dims):
        if isinstance(o, T.Tensor):
            v = o._data
            if d is None:
                res.append(v)
            else:
                d = int(d)
                if not -v.ndim <= d < v.ndim or v.shape[d] != tr.size:
                    raise RuntimeError(
                        f"The autograd.Function's vmap staticmethod returned an output of "
                        f"shape {list(v.shape)} with out_dim {d}, but the batch size is "
                        f"{tr.size}: the output must have the batch at dimension out_dim")
                res.append(BatchTracer(tr, v, d % v.ndim))
        else:
            res.append(o)
    return res[0] if single else tuple(res)


def _loop_rule(cls, phys, in_dims, size):
    """``generate_vmap_rule``: the Function applied to each batch element (grad mode
    off, as under ``torch.func.vmap``), stacked along dimension 0."""
    rows = []
    single = True
    prev = _tls.grad
    _tls.grad = False
    try:
        for b in range(size):
            sl = [a if d is None else T._make(np.take(a._data, b, axis=d))
                  for a, d in zip(phys, in_dims)]
            r = cls.apply(*sl)
            single = not isinstance(r, tuple)
            rows.append((r,) if single else r)
    finally:
        _tls.grad = prev
    cols = []
    dims = []
    for k in range(len(rows[0])):
        col = [r[k] for r in rows]
        if isinstance(col[0], T.Tensor):
            cols.append(T._make(np.stack([c._data for c in col])))
            dims.append(0)
        else:
            cols.append(col[0])
            dims.append(None)
    return (cols[0] if single else tuple(cols)), (dims[0] if single else tuple(dims))


# ------------------------------------------------- under ftrans.grad/vjp/jvp (one level)
def _apply_transformed(cls, args, forward_mode):
    """``cls.apply`` under ``ftrans.grad``/``vjp``/``value_and_grad``/``jacrev`` (reverse
    mode) or ``ftrans.jvp``/``jacfwd`` (``forward_mode``), as ``torch.func``'s transforms
    run an autograd.Function ("Extending torch.func with autograd.Function").

    The array arguments (ndarrays and tracers) become the operands of ftrans's
    ``custom_vjp_call`` primitive (reverse mode) or ``custom_jvp_call`` primitive (forward
    mode; ftrans/transforms/custom.py); the other arguments (Python numbers, ...) are
    passed unchanged, and concrete compat Tensors detached: they are constants of the
    transform.  Each rule runs the Function on compat Tensors wrapping concrete arrays:

    * primal: ``apply`` with grad mode off (re-dispatched, so ``vmap`` of it uses the
      Function's batching rule);
    * reverse ``fwd``: ``forward`` + ``setup_context`` recording a node, the arguments
      that are traced being leaves that require grad (``ctx.needs_input_grad``); the node
      (``ctx``) is the residual (a Python object: ``custom_vjp`` keeps it on the tape
      untouched, and frees it with the tape); ``bwd``: ``backward`` on the output
      cotangents (None, i.e. zeros or None by ``set_materialize_grads``, for
      non-differentiable and non-tensor outputs), one gradient per operand, checked and
      summed to the input's shape and dtype as in ``loss.backward()``.  The node keeps
      its saved tensors after ``backward`` (``vjp_fn`` may be called again, ``jacrev``
      calls it once per output element);
    * forward: ``forward`` + ``setup_context`` (grad mode off), then ``jvp(ctx,
      *tangents)`` with the operands' tangents as compat Tensors (zeros for untraced
      floating inputs, None for integer ones).

    A rule whose operands are batched by one ``ftrans.vmap`` with concrete values (the
    cotangents under ``jacrev``, the tangents under ``jacfwd``, the inputs under
    ``vmap(grad(f))``) runs once per batch element and stacks the results; batching the
    Function's forward or ``jvp`` needs vmap support (a ``vmap`` staticmethod or
    ``generate_vmap_rule = True``), as in ``torch.func``.  Outputs are ftrans values
    (arrays or tracers) in place of the output Tensors; non-tensor outputs are returned
    unchanged.

    Shapes and dtypes: the outputs are the Function's, gradients and tangents those of
    the inputs/outputs they belong to (non-floating ones get ftrans's ``float0`` zeros).

    Raises
    ------
    RuntimeError
        PyTorch's "does not have vmap support" when the forward or jvp is batched
        without vmap support; the errors of ``backward`` validation (see
        ``_check_grads``); ``mark_dirty`` (an in-place Function: ftrans arrays are
        immutable values).
    NotImplementedError
        Nested differentiation -- a rule's operands traced by another transform
        (``grad`` of ``grad``, ``hessian``, ``jacfwd(jacrev(f))``, ``jvp`` of ``grad``,
        ``linearize``, ``vmap(jacrev(f))``): the Function's ``backward`` and ``jvp``
        compute on concrete arrays, so they cannot be differentiated or batched by
        ftrans again (``torch.func`` can, since there they are traced torch code); and
        ``grad`` of ``vmap`` reaching ``custom_vjp``'s batching rule, which would batch
        the residual (``_Residual``).  Use ``ftrans.custom_vjp``/``custom_jvp`` with
        ``ftrans.numpy`` rules instead.
    """
    ops = [i for i, a in enumerate(args) if isinstance(a, (Tracer, np.ndarray))]
    traced = [isinstance(args[i], Tracer) and args[i].dtype.kind in "fc" for i in ops]
    const = [None if i in ops else a.detach() if isinstance(a, T.Tensor) else a
             for i, a in enumerate(args)]  # keeps no tracer alive in the rules' closures
    is_t = [i in ops or isinstance(a, T.Tensor) for i, a in enumerate(const)]
    edge = [sum(is_t[:i]) for i in ops]  # operand -> position among tensor arguments
    layout = []  # per output: a non-tensor value, or _TENSOR (an output of the primitive)

    def fill(xs, leaves):  # the Function's arguments; traced ones leaves if ``leaves``
        full = list(const)
        for i, x, t in zip(ops, xs, traced):
            full[i] = x if isinstance(x, Tracer) else T._make(x)
            if leaves and t:
                full[i].requires_grad_()
        return tuple(full)

    def to_values(out):
        outs = out if isinstance(out, tuple) else (out,)
        layout[:] = [isinstance(out, tuple)] + [
            _TENSOR if isinstance(o, (T.Tensor, Tracer, np.ndarray)) else o for o in outs]
        return tuple(o._data if isinstance(o, T.Tensor) else o for o in outs
                     if isinstance(o, (T.Tensor, Tracer, np.ndarray)))

    def run(xs, record):  # forward + setup_context on concrete xs: (ctx, args, output)
        ctx = _new_ctx(cls)
        full = fill(xs, record)
        prev = _tls.grad
        _tls.grad = record
        try:
            out = _apply(cls, full, {}, True, ctx)
        finally:
            _tls.grad = prev
        if ctx.dirty_tensors:
            raise RuntimeError(f"{cls.__name__} marks inputs dirty (modifies them in place): "
                               "not supported under ftrans transforms, whose arrays are "
                               "immutable values; return a new tensor (e.g. x.clone()) instead")
        return ctx, full, out

    def fun(*xs):
        prev = _tls.grad
        _tls.grad = False
        try:
            return to_values(cls.apply(*fill(xs, False)))
        finally:
            _tls.grad = prev

    def fwd(*xs):
        tr = _vmap_of(cls, xs, None, "inputs of its reverse-mode rule")
        nodes = []

        def one(b, vals):
            ctx, _, out = run(vals, True)
            outs = out if isinstance(out, tuple) else (out,)
            nodes.append((ctx, [isinstance(o, T.Tensor) and o._grad_fn is ctx for o in outs]))
            return to_values(out)
        return tuple(_each(cls, tr, xs, one, True)), _Residual(cls, nodes, tr)

    def bwd(res, cts, closed):
        nodes, tr = res.nodes, res.trace

        def one(b, vals):
            ctx, live = nodes[b] if len(nodes) > 1 else nodes[0]
            it = iter(vals)
            buf = [next(it) if lay is _TENSOR else None for lay in layout[1:]]
            buf = [c if ok else None for c, ok in zip(buf, live)]
            grads = ctx._call_backward(buf, True, False)  # keep: vjp_fn may run again
            return [grads[k] if t else None for k, t in zip(edge, traced)]
        return _each(cls, _vmap_of(cls, cts, tr, "cotangents of its backward"), cts, one, False)

    def jvp(primals, tangents):
        tr_p = _vmap_of(cls, primals, None, "inputs of its forward-mode rule")
        tr = _vmap_of(cls, tangents, tr_p, "tangents of its jvp")
        runs = []

        def fwd_one(b, vals):
            runs.append(run(vals, False))
            return to_values(runs[-1][2])

        def jvp_one(b, vals):
            ctx, full, out = runs[b] if len(runs) > 1 else runs[0]
            fw = _Tangents({id(full[i]): None if t.dtype == float0 else t
                            for i, t in zip(ops, vals)})
            _forward_grads(cls, ctx, full, is_t, out, fw)
            outs = out if isinstance(out, tuple) else (out,)
            return [fw.out.get(id(o), np.zeros_like(o._data)) for o in outs
                    if isinstance(o, T.Tensor)]
        outs = _each(cls, tr_p, primals, fwd_one, True)
        return tuple(outs), tuple(_each(cls, tr, tangents, jvp_one, True))

    operands = [args[i] for i in ops]
    if forward_mode:
        res = custom_jvp_call_p.bind(*operands, fun=fun, jvp=jvp, n_closed=0,
                                     name=cls.__name__)
    else:
        res = custom_vjp_call_p.bind(*operands, fun=fun, fwd=fwd, bwd=bwd, n_closed=0,
                                     name=cls.__name__)
    it = iter(res)
    outs = tuple(next(it) if lay is _TENSOR else lay for lay in layout[1:])
    return outs if layout[0] else outs[0]


_TENSOR = object()  # marks a tensor output in _apply_transformed's output layout


class _Residual:
    """The residual of ``_apply_transformed``'s ``fwd``: the recorded nodes (one per batch
    element) and the ``ftrans.vmap`` trace batching them (or None).  Opaque to ftrans: a
    vmap of ``fwd`` itself (``grad`` of ``vmap``, reached through ``custom_vjp``'s
    batching rule) would have to convert it to an array, which raises."""

    __slots__ = ("cls", "nodes", "trace")

    def __init__(self, cls, nodes, trace):
        self.cls, self.nodes, self.trace = cls, nodes, trace

    def __array__(self, *args, **kwargs):
        raise NotImplementedError(
            f"{self.cls.__name__}.apply: ftrans.vmap would batch the recorded graph of the "
            "Function (ftrans.grad of ftrans.vmap over a compat autograd.Function), which "
            "cannot be batched: put the vmap outside the grad (ftrans.vmap(ftrans.grad(f)) "
            "works), or write the operation with ftrans.custom_vjp")


class _Tangents:
    """The interface of ``forward_ad`` that ``_forward_grads`` uses, over given tangents
    (arrays by argument id) and collecting the output tangents (``out``, by output id)."""

    def __init__(self, tangents):
        self.tangents = tangents
        self.out = {}

    def _tangent_of(self, a):
        return self.tangents.get(id(a))

    def _set_tangent(self, o, t):
        self.out[id(o)] = t


def _vmap_of(cls, vals, tr, what):
    """The ``ftrans.vmap`` trace batching ``vals`` (``tr`` when given; None when all are
    concrete).  NotImplementedError for a value traced otherwise (see
    ``_apply_transformed``)."""
    for v in vals:
        if not isinstance(v, Tracer):
            continue
        if type(v) is BatchTracer and isinstance(v.val, np.ndarray) and (
                tr is None or v._trace is tr):
            tr = v._trace
            continue
        raise NotImplementedError(
            f"{cls.__name__}.apply under nested ftrans transforms: the {what} are traced by "
            f"a further ftrans.{v._trace.name}. A compat autograd.Function computes "
            "forward, backward and jvp on concrete arrays, so it supports one "
            "ftrans.grad/vjp/value_and_grad/jacrev or ftrans.jvp/jacfwd (optionally inside "
            "one ftrans.vmap), not nested transforms (grad of grad, hessian, "
            "jacfwd(jacrev(f)), jvp of grad, linearize, vmap of jacrev); write the "
            "operation with ftrans.custom_vjp/custom_jvp and ftrans.numpy rules instead")
    return tr


def _each(cls, tr, vals, fn, needs_rule):
    """``fn(b, vals)`` -> list of arrays (or None) on concrete values; when ``tr`` (an
    ``ftrans.vmap`` trace) batches them, once per batch element ``b`` (unbatched values
    broadcast), the results stacked at dimension 0 as BatchTracers of ``tr`` (a None among
    arrays counts as zeros).  ``needs_rule``: the Function itself is batched, which
    ``torch.func`` allows only with vmap support (RuntimeError otherwise)."""
    if tr is None:
        return list(fn(0, list(vals)))
    if needs_rule and not (cls.generate_vmap_rule or _overrides(cls, "vmap")):
        raise _no_vmap_rule(cls)
    rows = [fn(b, [np.asarray(np.take(v.val, b, axis=v.bdim)) if isinstance(v, Tracer)
                   else v for v in vals]) for b in range(tr.size)]
    out = []
    for col in zip(*rows):
        ref = next((c for c in col if c is not None), None)
        out.append(None if ref is None else BatchTracer(
            tr, np.stack([np.zeros_like(ref) if c is None else c for c in col]), 0))
    return out


def once_differentiable(fn):
    """Decorator for ``backward``: the gradients it returns cannot be differentiated
    again -- a double backward through them raises ``RuntimeError``."""
    @functools.wraps(fn)
    def wrapper(ctx, *args):
        prev = _tls.grad
        _tls.grad = False
        try:
            outputs = fn(ctx, *args)
        finally:
            _tls.grad = prev
        if not _tls.grad:
            return outputs
        req = [a for a in args if isinstance(a, T.Tensor) and a.requires_grad]
        if not req:
            return outputs
        single = not isinstance(outputs, tuple)
        outs = (outputs,) if single else outputs
        res = tuple(_delayed_error(o, req, ctx) if isinstance(o, T.Tensor) else o
                    for o in outs)
        return res[0] if single else res
    return wrapper


def _delayed_error_bwd(node, ct, primals, ans, needs):
    raise RuntimeError("trying to differentiate twice a function that was marked with "
                       "@once_differentiable")


def _delayed_error(o, req, ctx):
    cls = G.node_class("DelayedError", ("self",) * len(req), _delayed_error_bwd)
    return O._record(cls, None, {}, list(req), [a._data for a in req], o._data,
                     O.SAVE_NONE)


class InplaceFunction(Function):
    """A Function with an ``inplace`` flag (legacy PyTorch helper)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace
