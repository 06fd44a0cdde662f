"""``ftrans.compat.func``: ``torch.func``'s transforms over compat Tensors.

``grad``, ``grad_and_value``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd``, ``hessian``,
``vmap``, ``functional_call`` and ``stack_module_state`` with ``torch.func``'s signatures,
argument rules and return structures (pytrees -- tuples, lists, dicts -- of Tensors in
and out, ``argnums``, ``has_aux``, ``in_dims``/``out_dims``, ``randomness``).

How they run.  On ftrans's own transforms ("one set of traces"): a compat Tensor can
hold a Tracer of an ftrans transform, and compat operations compute with the primitives'
``bind``, so ``grad``/``grad_and_value``/``vjp``/``jvp``/``jacrev``/``jacfwd``/``vmap``
hand the arrays of the differentiated (mapped) arguments to ``ftrans.value_and_grad``/
``vjp``/``jvp``/``jacrev``/``jacfwd``/``vmap``, whose traced function wraps the traced
values in Tensors (grad mode off: no compat graph is recorded, the trace
differentiates/batches), calls ``func`` and unwraps its Tensor results.  Nesting
(``vmap(grad(f))``, ``grad(grad(f))``, ``hessian``) nests the ftrans transforms, so
torch's per-sample-gradients recipe runs ``func`` once, on batched traces.

``vmap`` at top level over inputs that require grad (ensembling over
``stack_module_state``'s leaves) also runs traced: the batched pass runs under
``ftrans.vjp`` and its outputs get one compat graph node whose backward is that VJP
(once differentiable: a double backward through it raises ``RuntimeError``).

Fallback: the compat autograd engine, described below, runs instead when (a) an input
of ``grad``/``vjp``/``jvp``/``jacrev``/``jacfwd`` requires grad while grad mode is on,
a forward AD level is active, or ``vmap`` runs inside an engine transform (results must
then be differentiable by the engine), (b) ``func`` uses an operation that cannot take a traced value
(see ``_untraceable``: ``.item()``, ``.numpy()``, NumPy code, a value-dependent shape, a
primitive without a batching rule), detected at the outermost transform, which then runs
``func`` again on the engine, or (c) ``vmap(randomness="different")`` with random draws
(the traced pass would share them).

The engine path.  A compat Tensor holds a concrete array and its operations compute
through the primitives' kernels, recording the dynamic graph whose backward formulas are
the primitives' VJP rules -- the rules ``ftrans.grad``/``ftrans.vjp`` use.  The
differentiation transforms drive that engine:

* ``grad``/``vjp``/``jacrev``: each differentiated input is replaced by a fresh alias
  (a detached leaf, or a differentiable ``view_as`` when it already requires grad),
  ``func`` runs, and ``autograd.grad`` computes the cotangents; ``jacrev`` computes all
  rows of each output's Jacobian in one backward pass run under ``ftrans.vmap``
  (``is_grads_batched``, :mod:`.autograd._batched`);
* ``jvp``/``jacfwd``: forward-mode products ``J v`` by the double-backward identity
  (the VJP ``u -> J^T u`` is linear in ``u``; differentiating ``<J^T u, v>`` with respect
  to ``u`` gives ``J v``), as ``torch.autograd.functional.jvp`` does; ``jacfwd`` batches
  the tangents through ``ftrans.vmap`` the same way;
* nesting (``grad(grad(f))``, ``hessian = jacfwd(jacrev(f))``, ``vmap(grad(f))``...)
  works because a transform running inside another differentiation transform, or on
  inputs that require grad, records its own results (``create_graph=True``), so the outer
  transform differentiates through them; at top level results are detached, as
  ``torch.func``'s are.
* ``vmap`` runs ``func`` once per example on differentiable slices (``select``) of the
  mapped inputs and stacks the results (``stack``): exact, differentiable, but a Python
  loop -- not a batching trace.  ``randomness="error"`` raises when ``func`` draws from the
  default generator, ``"same"`` replays the same random numbers for every example,
  ``"different"`` lets them differ.

``functional_call``/``stack_module_state`` use only the duck-typed module interface
(``named_parameters()``, ``named_buffers()``, attribute paths ``"a.b.weight"``), so they
work with ``compat.nn.Module`` and any object providing it.
"""
from __future__ import annotations

import contextlib
import functools
import threading

from .. import transforms as _TR
from ..transforms.vjp import vjp_unchecked
from ..core.pytree import tree_flatten, tree_unflatten
from ..core.trace import Tracer, TracerArrayConversionError
from . import _factories as F
from . import _ops as O
from ._tensor import Tensor, _make_plain
from .autograd import grad as _autograd_grad
from .autograd.function import Function, once_differentiable
from .autograd.grad_mode import enable_grad, is_grad_enabled, no_grad

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state"]

_tls = threading.local()


def _depth():
    return getattr(_tls, "depth", 0)


@contextlib.contextmanager
def _level():
    _tls.depth = _depth() + 1
    try:
        yield
    finally:
        _tls.depth -= 1


# ----------------------------------------------------------------------------- helpers
def _is_tensor(x):
    return isinstance(x, Tensor)


def _check_argnums(argnums, nargs, api):
    if isinstance(argnums, int):
        nums = (argnums,)
    elif isinstance(argnums, tuple) and argnums and all(isinstance(a, int) for a in argnums):
        nums = argnums
    else:
        got = argnums if isinstance(argnums, tuple) else type(argnums).__name__
        raise RuntimeError(f"{api}: argnums must be int or Tuple[int, ...], got: {got}")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(f"Got argnums={a}, but only {nargs} positional inputs")
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{api}: argnums must be unique, got {argnums}")
    return out


def _alias(x, api):
    """A fresh tensor standing for input ``x``: differentiable alias when ``x`` already
    requires grad (the outer computation can differentiate through), else a new leaf."""
    if not _is_tensor(x):
        raise RuntimeError(f"{api}: Expected the differentiated arguments to be Tensors (or "
                           f"pytrees of Tensors), got {type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(f"{api}: only Tensors of floating point dtype can be "
                           f"differentiated (got {x.dtype})")
    if x.requires_grad and is_grad_enabled():
        return O.view_as(x, x)
    return x.detach().requires_grad_(True)


def _prepare(args, nums, api):
    """(new args, flat differentiated leaves, their treedefs per argnum)."""
    args = list(args)
    flat, defs = [], []
    for a in nums:
        leaves, td = tree_flatten(args[a])
        new = [_alias(x, api) for x in leaves]
        args[a] = tree_unflatten(td, new)
        flat.append(new)
        defs.append(td)
    return args, flat, defs


def _nested(originals, outer_grad):
    """True when results must stay differentiable: grad mode was on where the transform
    was called, and it runs inside another differentiation transform or an input
    requires grad."""
    return outer_grad and (_depth() > 1 or any(
        _is_tensor(x) and x.requires_grad for x in originals))


def _grads(outs, inputs, grad_outputs, create_graph, retain_graph=None):
    """Gradients of ``outs`` at ``inputs`` (zeros for unused inputs)."""
    req = [o for o in outs if o.requires_grad]
    gos = [g for o, g in zip(outs, grad_outputs) if o.requires_grad]
    if not req:
        return [F.zeros_like(x) for x in inputs]
    gs = _autograd_grad(req, inputs, grad_outputs=gos, create_graph=create_graph,
                        retain_graph=True if retain_graph is None else retain_graph,
                        allow_unused=True)
    return [F.zeros_like(x) if g is None else g for x, g in zip(inputs, gs)]


def _finish(x, keep):
    if keep or not _is_tensor(x):
        return x
    return x.detach()


def _tree_finish(tree, keep):
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [_finish(x, keep) for x in leaves])


def _split_aux(out, has_aux, api):
    if not has_aux:
        return out, None
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(f"{api}(f, ...)(*args): output of function f should be a tuple: "
                           "(output, aux) if has_aux is True")
    return out


def _per_argnum(values, defs, argnums):
    trees = [tree_unflatten(td, vals) for td, vals in zip(defs, values)]
    return trees[0] if isinstance(argnums, int) else tuple(trees)


# ------------------------------------------------------------------------------ grad
def _engine_grad_and_value(func, argnums=0, has_aux=False):
    """``func``'s gradient with respect to the arguments ``argnums`` (int or tuple) and
    its value: ``grad_and_value(f)(*args) -> (grad, value)`` (``((grad, (value, aux))``
    with ``has_aux``).  ``func`` must return a real scalar (one-element) Tensor
    (``RuntimeError`` otherwise, as ``torch.func``); the gradient has the structure of the
    differentiated argument(s) -- pytrees of Tensors are allowed.

    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import grad_and_value
    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """
    api = "grad_and_value"

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), api)
        outer = is_grad_enabled()
        with _level(), enable_grad():
            originals = [x for a in nums for x in tree_flatten(args[a])[0]]
            keep = _nested(originals, outer)
            new_args, flat, defs = _prepare(args, nums, api)
            out, aux = _split_aux(func(*new_args, **kwargs), has_aux, api)
            if not _is_tensor(out):
                raise RuntimeError(f"{api}(f)(*args): Expected f(*args) to return a Tensor, "
                                   f"got {type(out)}")
            if out.dim() != 0:
                raise RuntimeError(f"{api}(f)(*args): Expected f(*args) to return a scalar "
                                   f"Tensor, got tensor with {out.dim()} dims. Maybe you "
                                   "wanted to use the vjp or jacrev APIs instead?")
            inputs = [x for group in flat for x in group]
            gs = _grads([out], inputs, [F.ones_like(out)], keep)
        it = iter(gs)
        vals = [[_finish(next(it), keep) for _ in group] for group in flat]
        g = _per_argnum(vals, defs, argnums)
        value = _finish(out, keep)
        if has_aux:
            return g, (value, _tree_finish(aux, keep))
        return g, value
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of scalar-valued ``func`` with respect to ``argnums``
    (``torch.func.grad``); ``(grad, aux)`` with ``has_aux``.  See :func:`grad_and_value`.

    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import grad
    >>> grad(lambda x: x.sin().sum())(torch.tensor([0.0]))
    tensor([1.])
    """
    gv = grad_and_value(func, argnums, has_aux)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g
    return wrapper


# ------------------------------------------------------------------------------ vjp
def _engine_vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)`` (``(output, vjp_fn, aux)``): ``vjp_fn(cotangents)`` returns
    a tuple with one cotangent per primal (each of the primal's pytree structure) for
    cotangents of ``output``'s structure (``torch.func.vjp``).  ``vjp_fn`` can be called
    several times."""
    api = "vjp"
    outer = is_grad_enabled()
    with _level(), enable_grad():
        keep = _nested([x for p in primals for x in tree_flatten(p)[0]], outer)
        new_args, flat, defs = _prepare(primals, range(len(primals)), api)
        out, aux = _split_aux(func(*new_args), has_aux, api)
    outs, out_def = tree_flatten(out)
    for o in outs:
        if not _is_tensor(o):
            raise RuntimeError(f"vjp(f, *primals): Expected f to be a function that has only "
                               f"Tensors as its outputs, got {type(o)}")
    inputs = [x for group in flat for x in group]

    def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
        cts, ct_def = tree_flatten(cotangents)
        if ct_def != out_def and not (len(outs) == 1 and len(cts) == 1):
            raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                               f"pytree structure of outputs to the function. cotangents: "
                               f"{ct_def}, primal output: {out_def}")
        for c, o in zip(cts, outs):
            if tuple(c.shape) != tuple(o.shape):
                raise RuntimeError(f"Mismatch in shape: grad_output has a shape of "
                                   f"{c.shape} and output has a shape of {o.shape}.")
        cg = keep if create_graph is None else create_graph
        nested_now = is_grad_enabled() and _depth() > 0
        with _level(), enable_grad():
            gs = _grads(outs, inputs, cts, cg or nested_now)
        it = iter(gs)
        return tuple(tree_unflatten(td, [_finish(next(it), cg) for _ in group])
                     for td, group in zip(defs, flat))

    res = (_tree_finish(out, keep), vjp_fn)
    return res + (_tree_finish(aux, keep),) if has_aux else res


# ------------------------------------------------------------------------------ jvp
def _forward_products(outs, inputs, tangent_sets, keep, batched):
    """``J t`` for the flattened outputs, by double backward: one tuple per output.
    ``tangent_sets``: per input, a tangent (or a batch of them when ``batched``)."""
    us = [F.zeros_like(o).requires_grad_(True) for o in outs]
    gs = _autograd_grad(outs, inputs, grad_outputs=us, create_graph=True, retain_graph=True,
                        allow_unused=True)
    pairs = [(g, t) for g, t in zip(gs, tangent_sets) if g is not None and g.requires_grad]
    if not pairs:
        return [None] * len(outs)
    res = _autograd_grad([g for g, _ in pairs], us, grad_outputs=[t for _, t in pairs],
                         create_graph=keep, retain_graph=True, allow_unused=True,
                         is_grads_batched=batched)
    return list(res)


def _check_jvp_args(primals, tangents):
    """torch.func.jvp's argument checks (its ``RuntimeError`` messages); returns the
    flattened primals and tangents."""
    if not isinstance(primals, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals to be a tuple. E.g. "
                           "it should be valid to call f(*primals).")
    if not isinstance(tangents, tuple):
        raise RuntimeError("jvp(f, primals, tangents): Expected tangents to be a tuple.")
    pl, pdef = tree_flatten(primals)
    tl, tdef = tree_flatten(tangents)
    if pdef != tdef:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have "
                           f"the same python structure. For example, if primals is a tuple "
                           f"of 3 tensors, tangents also must be. Got primals with structure "
                           f"{pdef} and tangents with structure {tdef}")
    for p, t in zip(pl, tl):
        if tuple(p.shape) != tuple(t.shape):
            raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to "
                               f"have the same shape. Got {tuple(p.shape)} and "
                               f"{tuple(t.shape)}")
    return pl, tl


def _engine_jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)`` (``(output, jvp_out, aux)``): ``func(*primals)`` and its
    directional derivative along ``tangents`` (``torch.func.jvp``).  ``primals`` and
    ``tangents`` are tuples of the same pytree structure and shapes (``RuntimeError``
    otherwise)."""
    pl, tl = _check_jvp_args(primals, tangents)
    outer = is_grad_enabled()
    with _level(), enable_grad():
        keep = _nested(pl + tl, outer)
        new_args, flat, _ = _prepare(primals, range(len(primals)), "jvp")
        out, aux = _split_aux(func(*new_args), has_aux, "jvp")
        outs, out_def = tree_flatten(out)
        inputs = [x for g in flat for x in g]
        prods = _forward_products(outs, inputs, tl, keep, False)
    jv = [F.zeros_like(o) if p is None else _finish(p, keep) for o, p in zip(outs, prods)]
    res = (_tree_finish(out, keep), tree_unflatten(out_def, jv))
    return res + (_tree_finish(aux, keep),) if has_aux else res


# ------------------------------------------------------------------------------ jacobians
def _jac_structure(per_out, outs_def, defs, argnums):
    """Jacobian pytree: the output's structure, each leaf the argument structure."""
    return tree_unflatten(outs_def, [_per_argnum(blocks, defs, argnums) for blocks in per_out])


def _engine_jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Jacobian of ``func`` with respect to ``argnums`` by reverse mode
    (``torch.func.jacrev``): for an output of shape ``O`` and an input of shape ``I`` the
    block has shape ``O + I``; the result has the outputs' pytree structure, each leaf
    the differentiated arguments' structure (a tuple over ``argnums`` when it is a tuple).
    All rows of a block come from one backward pass run under ``ftrans.vmap``."""
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), "jacrev")
        outer = is_grad_enabled()
        with _level(), enable_grad():
            keep = _nested([x for a in nums for x in tree_flatten(args[a])[0]], outer)
            new_args, flat, defs = _prepare(args, nums, "jacrev")
            out, aux = _split_aux(func(*new_args, **kwargs), has_aux, "jacrev")
            outs, out_def = tree_flatten(out)
            inputs = [x for g in flat for x in g]
            per_out = []
            for o in outs:
                n = o.numel()
                if o.requires_grad and n > 0:
                    eye = F.eye(n, dtype=o.dtype).reshape((n,) + tuple(o.shape))
                    gs = _autograd_grad([o], inputs, grad_outputs=[eye], retain_graph=True,
                                        create_graph=keep, allow_unused=True,
                                        is_grads_batched=True)
                else:
                    gs = [None] * len(inputs)
                blocks = []
                for x, g in zip(inputs, gs):
                    shape = tuple(o.shape) + tuple(x.shape)
                    if g is None:
                        blocks.append(F.zeros(shape, dtype=x.dtype))
                    else:
                        blocks.append(_finish(g.reshape(shape), keep))
                it = iter(blocks)
                per_out.append([[next(it) for _ in group] for group in flat])
        jac = _jac_structure(per_out, out_def, defs, argnums)
        return (jac, _tree_finish(aux, keep)) if has_aux else jac
    return wrapper


def _engine_jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """Jacobian of ``func`` with respect to ``argnums`` by forward products ``J e_i``
    (``torch.func.jacfwd``): same shapes and structure as :func:`jacrev`.  The products
    for all basis tangents of an input come from one (batched) pass of the
    double-backward identity (see the module docstring)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), "jacfwd")
        outer = is_grad_enabled()
        with _level(), enable_grad():
            keep = _nested([x for a in nums for x in tree_flatten(args[a])[0]], outer)
            new_args, flat, defs = _prepare(args, nums, "jacfwd")
            out, aux = _split_aux(func(*new_args, **kwargs), has_aux, "jacfwd")
            outs, out_def = tree_flatten(out)
            inputs = [x for g in flat for x in g]
            cols = []      # per input: per output, (n_in, *out.shape) or None
            us = [F.zeros_like(o).requires_grad_(True) for o in outs]
            diff = [o for o in outs if o.requires_grad]
            gs = (_autograd_grad([o for o in outs if o.requires_grad], inputs,
                                 grad_outputs=[u for o, u in zip(outs, us) if o.requires_grad],
                                 create_graph=True, retain_graph=True, allow_unused=True)
                  if diff else [None] * len(inputs))
            for x, g in zip(inputs, gs):
                n = x.numel()
                if g is None or not g.requires_grad or n == 0:
                    cols.append([None] * len(outs))
                    continue
                basis = F.eye(n, dtype=x.dtype).reshape((n,) + tuple(x.shape))
                r = _autograd_grad([g], us, grad_outputs=[basis], create_graph=keep,
                                   retain_graph=True, allow_unused=True, is_grads_batched=True)
                cols.append(list(r))
            per_out = []
            for j, o in enumerate(outs):
                blocks = []
                for i, x in enumerate(inputs):
                    shape = tuple(o.shape) + tuple(x.shape)
                    c = cols[i][j]
                    if c is None:
                        blocks.append(F.zeros(shape, dtype=o.dtype))
                    else:   # (n_in, *O) -> O + I
                        c = c.reshape((x.numel(), o.numel())).t().reshape(shape)
                        blocks.append(_finish(c, keep))
                it = iter(blocks)
                per_out.append([[next(it) for _ in group] for group in flat])
        jac = _jac_structure(per_out, out_def, defs, argnums)
        return (jac, _tree_finish(aux, keep)) if has_aux else jac
    return wrapper


# ------------------------------------------------------------------------------ traced path
# The public transforms first try ftrans's own transforms: the differentiated (or mapped)
# arrays are handed to ``ftrans.value_and_grad``/``vjp``/``jvp``/``jacrev``/``jacfwd``/
# ``vmap``, whose function wraps the traced values in compat Tensors (no compat graph:
# grad mode is off inside, the ftrans trace differentiates), calls ``func`` and unwraps
# its Tensor results.  Nesting (``vmap(grad(f))``, ``grad(grad(f))``) nests the ftrans
# transforms: one set of traces.  The compat autograd engine (``_engine_*``) remains the
# fallback when (a) an input requires grad with grad mode on, or a forward AD level is
# active (the results must then be differentiable by the compat engine), or (b) ``func``
# uses an operation that cannot hold a traced value (it raises
# ``TracerArrayConversionError``, or ``NotImplementedError`` for a primitive without a
# batching rule) -- then ``func`` runs again on the engine.


def _untraceable(e):
    """Errors meaning "this computation cannot run on traced values": a traced value
    converted to NumPy or to a Python number (``TracerArrayConversionError``, e.g.
    ``.item()``, ``.numpy()``, an operation computing with NumPy), a primitive without a
    batching rule (``NotImplementedError``), NumPy/kernel code handed a tracer
    (``TypeError``/``AttributeError``), a value-dependent shape (``IndexError`` naming
    the traced mask).  A genuine error of ``func`` of these types is raised again by the
    engine's run."""
    if isinstance(e, (TracerArrayConversionError, NotImplementedError, TypeError,
                      AttributeError)):
        return True
    return isinstance(e, IndexError) and "trace" in str(e)


def _can_trace(args):
    if O._fw_on:
        return False
    leaves = tree_flatten(list(args))[0]
    if is_grad_enabled() and any(_is_tensor(x) and x.requires_grad for x in leaves):
        return False
    return True


def _has_tracer(args):
    return any(_is_tensor(x) and isinstance(x._data, Tracer)
               for x in tree_flatten(list(args))[0])


def _traced(traced_fn, engine_fn, args, *call):
    """Run ``traced_fn(*call)`` when the inputs allow it, else (or when it finds an
    untraceable operation at the outermost level) ``engine_fn(*call)``."""
    if not _can_trace(args):
        return engine_fn(*call)
    rng = F.default_generator._rng.bit_generator
    state = rng.state
    try:
        with no_grad():
            return traced_fn(*call)
    except Exception as e:   # noqa: BLE001 -- only untraceable errors fall back
        if not _untraceable(e) or _has_tracer(args):
            raise
    rng.state = state   # the engine's run draws the same random numbers
    return engine_fn(*call)


def _check_diff(x, api):
    if not _is_tensor(x):
        raise RuntimeError(f"{api}: Expected the differentiated arguments to be Tensors (or "
                           f"pytrees of Tensors), got {type(x).__name__}")
    if not (x.is_floating_point() or x.is_complex()):
        raise RuntimeError(f"{api}: only Tensors of floating point dtype can be "
                           f"differentiated (got {x.dtype})")


def _to_data(tree):
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [x._data if _is_tensor(x) else x for x in leaves])


def _is_array(x):
    return isinstance(x, Tracer) or hasattr(x, "__array_namespace__") or \
        type(x).__module__ == "numpy"


def _to_tensors(tree):
    leaves, td = tree_flatten(tree)
    return tree_unflatten(td, [_make_plain(x) if _is_array(x) else x for x in leaves])


def _diff_datas(args, nums, api):
    datas = []
    for a in nums:
        leaves, td = tree_flatten(args[a])
        for x in leaves:
            _check_diff(x, api)
        datas.append(tree_unflatten(td, [x._data for x in leaves]))
    return datas


def _substitute(func, args, nums, kwargs, api, has_aux, check=None):
    """``f(*datas)`` for the ftrans transforms: ``func`` with arguments ``nums`` replaced
    by Tensors around the traced values; returns the outputs' arrays (and aux)."""
    def f(*ds):
        new = list(args)
        for a, d in zip(nums, ds):
            new[a] = _to_tensors(d)
        out, aux = _split_aux(func(*new, **kwargs), has_aux, api)
        if check is not None:
            check(out)
        for o in tree_flatten(out)[0]:
            if not _is_tensor(o):
                raise RuntimeError(f"{api}(f, ...): Expected f to be a function that has only "
                                   f"Tensors as its outputs, got {type(o)}")
        return (_to_data(out), _to_data(aux)) if has_aux else _to_data(out)
    return f


def _check_scalar(api):
    def check(out):
        if not _is_tensor(out):
            raise RuntimeError(f"{api}(f)(*args): Expected f(*args) to return a Tensor, "
                               f"got {type(out)}")
        if out.dim() != 0:
            raise RuntimeError(f"{api}(f)(*args): Expected f(*args) to return a scalar "
                               f"Tensor, got tensor with {out.dim()} dims. Maybe you "
                               "wanted to use the vjp or jacrev APIs instead?")
    return check


def grad_and_value(func, argnums=0, has_aux=False):
    """``func``'s gradient with respect to the arguments ``argnums`` (int or tuple) and
    its value: ``grad_and_value(f)(*args) -> (grad, value)`` (``((grad, (value, aux))``
    with ``has_aux``).  ``func`` must return a real scalar (one-element) Tensor
    (``RuntimeError`` otherwise, as ``torch.func``); the gradient has the structure of the
    differentiated argument(s) -- pytrees of Tensors are allowed.  Runs on
    ``ftrans.value_and_grad`` (the engine as fallback: see "traced path" in the source).

    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import grad_and_value
    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1.0, 2.0]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """
    api = "grad_and_value"
    engine = _engine_grad_and_value(func, argnums, has_aux)   # the fallback

    def traced(*args, **kwargs):
        nums = _check_argnums(argnums, len(args), api)
        datas = _diff_datas(args, nums, api)
        f = _substitute(func, args, nums, kwargs, api, has_aux, _check_scalar(api))
        sel = 0 if isinstance(argnums, int) else tuple(range(len(nums)))
        value, g = _TR.value_and_grad(f, sel, has_aux=has_aux)(*datas)
        if has_aux:
            return _to_tensors(g), (_to_tensors(value[0]), _to_tensors(value[1]))
        return _to_tensors(g), _to_tensors(value)

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _traced(lambda *a: traced(*a, **kwargs), lambda *a: engine(*a, **kwargs),
                       args, *args)
    return wrapper


def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn)`` (``(output, vjp_fn, aux)``): ``vjp_fn(cotangents)`` returns
    a tuple with one cotangent per primal (each of the primal's pytree structure) for
    cotangents of ``output``'s structure (``torch.func.vjp``).  ``vjp_fn`` can be called
    several times.  Runs on ``ftrans.vjp`` (the engine as fallback)."""
    def traced(*primals):
        nums = list(range(len(primals)))
        datas = _diff_datas(primals, nums, "vjp")
        f = _substitute(func, primals, nums, {}, "vjp", has_aux)
        res = vjp_unchecked(f, *datas, has_aux=has_aux)
        out, fn = res[0], res[1]
        outs, out_def = tree_flatten(out)

        def vjp_fn(cotangents, *, retain_graph=True, create_graph=None):
            cts, ct_def = tree_flatten(cotangents)
            if ct_def != out_def and not (len(outs) == 1 and len(cts) == 1):
                raise RuntimeError("Expected pytree structure of cotangents to be the same as "
                                   "pytree structure of outputs to the function. cotangents: "
                                   f"{ct_def}, primal output: {out_def}")
            for c, o in zip(cts, outs):
                if tuple(c.shape) != tuple(o.shape):
                    raise RuntimeError(f"Mismatch in shape: grad_output has a shape of "
                                       f"{tuple(c.shape)} and output has a shape of "
                                       f"{tuple(o.shape)}.")
            if any(_is_tensor(c) and c.requires_grad for c in cts) and is_grad_enabled():
                raise RuntimeError("vjp_fn: cotangents that require grad are not supported "
                                   "on the traced path; detach them or nest vjp inside "
                                   "another ftrans.compat.func transform")
            with no_grad():
                r = fn(tree_unflatten(out_def, [_to_data(c) for c in cts]))
            return tuple(_to_tensors(x) for x in r)

        ret = (_to_tensors(out), vjp_fn)
        return ret + (_to_tensors(res[2]),) if has_aux else ret

    return _traced(traced, lambda *p: _engine_vjp(func, *p, has_aux=has_aux), primals,
                   *primals)


def jvp(func, primals, tangents, *, strict=False, has_aux=False):
    """``(output, jvp_out)`` (``(output, jvp_out, aux)``): ``func(*primals)`` and its
    directional derivative along ``tangents`` (``torch.func.jvp``).  ``primals`` and
    ``tangents`` are tuples of the same pytree structure and shapes (``RuntimeError``
    otherwise).  Runs on ``ftrans.jvp`` (forward mode; the engine as fallback)."""
    _check_jvp_args(primals, tangents)

    def traced(primals, tangents):
        nums = list(range(len(primals)))
        datas = _diff_datas(primals, nums, "jvp")
        tds = tuple(_to_data(t) for t in tangents)
        f = _substitute(func, primals, nums, {}, "jvp", has_aux)
        res = _TR.jvp(f, tuple(datas), tds, has_aux=has_aux)
        return tuple(_to_tensors(r) for r in res)

    return _traced(traced, lambda p, t: _engine_jvp(func, p, t, strict=strict,
                                                    has_aux=has_aux),
                   (primals, tangents), primals, tangents)


def _jacobian(api, ftrans_jac, engine):
    def make(func, argnums, has_aux, **kw):
        eng = engine(func, argnums, has_aux=has_aux, **kw)

        def traced(*args, **kwargs):
            nums = _check_argnums(argnums, len(args), api)
            datas = _diff_datas(args, nums, api)
            f = _substitute(func, args, nums, kwargs, api, has_aux)
            sel = 0 if isinstance(argnums, int) else tuple(range(len(nums)))
            res = ftrans_jac(f, sel, has_aux=has_aux)(*datas)
            if has_aux:
                return _to_tensors(res[0]), _to_tensors(res[1])
            return _to_tensors(res)

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            return _traced(lambda *a: traced(*a, **kwargs), lambda *a: eng(*a, **kwargs),
                           args, *args)
        return wrapper
    return make


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Jacobian of ``func`` with respect to ``argnums`` by reverse mode
    (``torch.func.jacrev``): for an output of shape ``O`` and an input of shape ``I`` the
    block has shape ``O + I``; the result has the outputs' pytree structure, each leaf
    the differentiated arguments' structure (a tuple over ``argnums`` when it is a tuple).
    Runs on ``ftrans.jacrev`` (one batched VJP over the output basis; the engine as
    fallback)."""
    return _jacobian("jacrev", lambda f, a, has_aux: _TR.jacrev(f, a, has_aux=has_aux,
                                                                 chunk_size=chunk_size),
                     _engine_jacrev)(func, argnums, has_aux)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error"):
    """Jacobian of ``func`` with respect to ``argnums`` by forward mode
    (``torch.func.jacfwd``): same shapes and structure as :func:`jacrev`.  Runs on
    ``ftrans.jacfwd`` (one batched JVP over the input basis; the engine as fallback)."""
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    return _jacobian("jacfwd", _TR.jacfwd, _engine_jacfwd)(func, argnums, has_aux,
                                                          randomness=randomness)


def hessian(func, argnums=0):
    """``jacfwd(jacrev(func, argnums), argnums)`` (``torch.func.hessian``): for a scalar
    output and an input of shape ``I`` the Hessian has shape ``I + I``."""
    return jacfwd(jacrev(func, argnums), argnums)



# ------------------------------------------------------------------------------ vmap
def _broadcast_dims(in_dims, args):
    if isinstance(in_dims, int) or in_dims is None:
        return [in_dims] * len(args)
    if not isinstance(in_dims, tuple):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): expected `in_dims` to "
                         f"be int or a (potentially nested) tuple matching the structure of "
                         f"inputs, got: {type(in_dims)}.")
    if len(in_dims) != len(args):
        raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims is not "
                         f"compatible with the structure of `inputs`. in_dims has structure "
                         f"{len(in_dims)} but inputs has structure {len(args)}.")
    return list(in_dims)


def _leaf_dims(dim, arg):
    """Per-leaf in_dims of ``arg`` for an in_dim that is an int/None or a prefix tree."""
    leaves, td = tree_flatten(arg)
    if dim is None or isinstance(dim, int):
        return leaves, td, [dim] * len(leaves)
    dleaves, dtd = tree_flatten(dim, is_leaf=lambda v: v is None)
    if len(dleaves) != len(leaves):
        raise ValueError(f"vmap: in_dims {dim} does not match the structure of the input")
    return leaves, td, dleaves


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """Map ``func`` over dimension ``in_dims`` of its inputs (``torch.func.vmap``):
    ``in_dims``/``out_dims`` are ints (negative allowed), None (not mapped / not
    batched) or pytrees of them matching the inputs/outputs.  All mapped inputs must
    have the same size along their mapped dimension (``ValueError``); ``func`` must return
    Tensors.  ``randomness``: "error" (``RuntimeError`` if ``func`` draws from the default
    generator), "same", "different".  Runs ``func`` once on batched traces
    (``ftrans.vmap``); the per-example loop of the module docstring's fallback otherwise
    (inputs requiring grad, untraceable operations, "different" random draws), whose
    results are differentiable with respect to the inputs.

    >>> import ftrans.compat as torch
    >>> from ftrans.compat.func import vmap
    >>> vmap(torch.dot)(torch.ones(3, 2), torch.ones(3, 2))
    tensor([2., 2., 2.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size <= 0):
        raise ValueError(f"vmap: chunk_size should be None or greater than 0. (got "
                         f"{chunk_size})")

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        dims = _broadcast_dims(in_dims, args)
        split = [_leaf_dims(d, a) for d, a in zip(dims, args)]
        size = None
        sizes = []
        for leaves, _, ds in split:
            for x, d in zip(leaves, ds):
                if d is None:
                    continue
                if not isinstance(d, int):
                    raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): in_dims must "
                                     f"be int or None, got {d!r}")
                if not _is_tensor(x):
                    raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                     f"{d} for an input but the input is of type {type(x)}. "
                                     "We cannot vmap over non-Tensor arguments, please use "
                                     "None as the respective in_dim")
                if not -x.dim() <= d < x.dim():
                    raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got in_dim="
                                     f"{d} for some input, but that input is a Tensor of "
                                     f"dimensionality {x.dim()} so expected in_dim to satisfy "
                                     f"-{x.dim()} <= in_dim < {x.dim()}.")
                sizes.append(x.shape[d])
        if not sizes:
            raise ValueError(f"vmap(f, in_dims={in_dims}, ...)(<inputs>): Got all in_dims=None "
                             "which means there is no input to vmap over. Please specify "
                             "at least one in_dim that is not None.")
        if len(set(sizes)) != 1:
            raise ValueError("vmap: Expected all tensors to have the same size in the mapped "
                             f"dimension, got sizes {sizes} for the mapped dimension")
        size = sizes[0]
        if size == 0:
            return _empty_batch(func, split, kwargs, out_dims)
        bridge = not _can_trace(args) and _can_bridge(args)
        if bridge or _can_trace(args):
            state = F.default_generator._rng.bit_generator.state
            try:
                with no_grad():
                    return _vmap_traced(func, split, kwargs, out_dims, randomness,
                                        chunk_size, bridge)
            except _RandomDifferent:
                pass
            except Exception as e:   # noqa: BLE001 -- only untraceable errors fall back
                if not _untraceable(e) or _has_tracer(args):
                    raise
                F.default_generator._rng.bit_generator.state = state
        gen = F.default_generator
        start_state = gen._rng.bit_generator.state
        results = []
        for i in range(size):
            if randomness == "same":
                gen._rng.bit_generator.state = start_state
            before = gen._rng.bit_generator.state if randomness == "error" else None
            ex_args = []
            for leaves, td, ds in split:
                ex_args.append(tree_unflatten(td, [x if d is None else x.select(d, i)
                                                   for x, d in zip(leaves, ds)]))
            r = func(*ex_args, **kwargs)
            if randomness == "error" and gen._rng.bit_generator.state != before:
                raise RuntimeError("vmap: called random operation while in randomness error "
                                   "mode. Please either use the 'same' or 'different' "
                                   "randomness flags on vmap or perform the randomness "
                                   "operation out of vmap")
            results.append(r)
        return _stack_results(results, out_dims, size)
    return wrapper


class _RandomDifferent(Exception):
    """``randomness="different"`` with random draws: the traced pass would share them."""


_RANDOM_ERROR = ("vmap: called random operation while in randomness error mode. Please "
                 "either use the 'same' or 'different' randomness flags on vmap or perform "
                 "the randomness operation out of vmap")


def _can_bridge(args):
    """vmap at top level (no forward AD level, not inside an engine transform) over
    inputs requiring grad: the traced pass is recorded as one compat node."""
    return not O._fw_on and _depth() == 0 and is_grad_enabled()


class _TracedVmapFn(Function):
    """One compat graph node for a traced ``vmap`` over inputs that require grad: its
    backward is ``ftrans.vjp`` of the batched computation (``box``: outputs, vjp).
    Once differentiable: a double backward through it raises ``RuntimeError``."""

    @staticmethod
    def forward(ctx, box, *inputs):
        ctx.vjp_fn = box[1]
        return tuple(_make_plain(o) for o in box[0])

    @staticmethod
    @once_differentiable
    def backward(ctx, *cts):
        with no_grad():
            r = ctx.vjp_fn([c._data for c in cts])
        return (None,) + tuple(_make_plain(x) for x in r)


def _vmap_traced(func, split, kwargs, out_dims, randomness, chunk_size, bridge=False):
    """``func`` once on batched traces (``ftrans.vmap``).  Random draws happen once: the
    same numbers for every example ("same"); "error" raises; "different" restores the
    generator and raises ``_RandomDifferent`` (the caller loops over examples).  With
    ``bridge`` (inputs require grad) the pass runs under ``ftrans.vjp`` and its outputs
    get one compat node (:class:`_TracedVmapFn`) whose backward is that VJP."""
    datas, axes, where = [], [], []
    for k, (leaves, _, ds) in enumerate(split):
        for j, (x, d) in enumerate(zip(leaves, ds)):
            if _is_tensor(x):
                datas.append(x._data)
                axes.append(d)
                where.append((k, j))
    out_def = []

    def f(ds_):
        new = [list(leaves) for leaves, _, _ in split]
        for (k, j), d in zip(where, ds_):
            new[k][j] = _make_plain(d)
        ex_args = [tree_unflatten(td, new[k]) for k, (_, td, _) in enumerate(split)]
        r = func(*ex_args, **kwargs)
        leaves, td = tree_flatten(r)
        for x in leaves:
            if not _is_tensor(x):
                raise ValueError(f"vmap(f, ...): `f` must only return Tensors, got type "
                                 f"{type(x)}. Did you mean to set out_dims= to None for "
                                 "output?")
        out_def.append(td)
        return [x._data for x in leaves]

    if isinstance(out_dims, tuple):
        oax = list(tree_flatten(out_dims, is_leaf=lambda v: v is None)[0])
    else:
        oax = out_dims
    gen = F.default_generator
    before = gen._rng.bit_generator.state
    batched = _TR.vmap(f, in_axes=(axes,), out_axes=oax, chunk_size=chunk_size)
    if bridge:
        tensors = [split[k][0][j] for k, j in where]
        diff = [i for i, x in enumerate(tensors) if x.requires_grad]

        def g(*dd):
            full = list(datas)
            for i, d in zip(diff, dd):
                full[i] = d
            return batched(full)
        res, vjp_fn = vjp_unchecked(g, *[datas[i] for i in diff])
        if not all(r.dtype.kind in "fc" for r in res):
            raise NotImplementedError("vmap: integer outputs of inputs requiring grad")
    else:
        res = batched(datas)
    if gen._rng.bit_generator.state != before:
        if randomness == "error":
            raise RuntimeError(_RANDOM_ERROR)
        if randomness == "different":
            gen._rng.bit_generator.state = before
            raise _RandomDifferent()
    if bridge:
        with enable_grad():
            outs = _TracedVmapFn.apply((res, vjp_fn), *[tensors[i] for i in diff])
        return tree_unflatten(out_def[-1], list(outs))
    return tree_unflatten(out_def[-1], [_make_plain(x) for x in res])


def _empty_batch(func, split, kwargs, out_dims):
    """vmap over a batch of size 0: ``func`` runs once on zero-filled examples to learn
    its outputs' shapes and dtypes; the results are empty along the mapped dimension."""
    ex_args = []
    for leaves, td, ds in split:
        ex = []
        for x, d in zip(leaves, ds):
            if d is None:
                ex.append(x)
            else:
                shape = list(x.shape)
                del shape[d % x.dim()]
                ex.append(F.zeros(shape, dtype=x.dtype))
        ex_args.append(tree_unflatten(td, ex))
    r = func(*ex_args, **kwargs)
    leaves, td = tree_flatten(r)
    od = (tree_flatten(out_dims, is_leaf=lambda v: v is None)[0]
          if isinstance(out_dims, tuple) else [out_dims] * len(leaves))
    out = []
    for x, d in zip(leaves, od):
        if not _is_tensor(x):
            raise ValueError(f"vmap(f, ...): `f` must only return Tensors, got type {type(x)}")
        if d is None:
            out.append(x)
        else:
            e = F.zeros((0,) + tuple(x.shape), dtype=x.dtype)
            out.append(O.movedim(e, 0, d % (x.dim() + 1)))
    return tree_unflatten(td, out)


def _stack_results(results, out_dims, size):
    flat = [tree_flatten(r) for r in results]
    td = flat[0][1] if flat else None
    n = len(flat[0][0]) if flat else 0
    if isinstance(out_dims, tuple):
        od, odt = tree_flatten(out_dims, is_leaf=lambda v: v is None)
        if len(od) != n:
            raise ValueError(f"vmap(f, ..., out_dims={out_dims})(<inputs>): out_dims is not "
                             "compatible with the structure of `outputs`.")
    else:
        od = [out_dims] * n
    stacked = []
    for k in range(n):
        col = [f[0][k] for f in flat]
        if not _is_tensor(col[0]):
            raise ValueError(f"vmap(f, ...): `f` must only return Tensors, got type "
                             f"{type(col[0])}. Did you mean to set out_dims= to None for "
                             "output?")
        if od[k] is None:
            stacked.append(col[0])
        else:
            d = od[k]
            nd = col[0].dim() + 1
            if not -nd <= d < nd:
                raise ValueError(f"vmap: out_dim {d} is out of range for outputs of "
                                 f"dimensionality {nd - 1}")
            stacked.append(O.stack(col, d % nd))
    return tree_unflatten(td, stacked)


# ------------------------------------------------------------------------------ modules
def _named(module, what):
    fn = getattr(module, what)
    try:
        return list(fn(remove_duplicate=False))
    except TypeError:
        return list(fn())


def _resolve(module, path):
    *mods, leaf = path.split(".")
    m = module
    for p in mods:
        m = getattr(m, p)
    return m, leaf


_MISSING = object()


def _swap(module, path, value):
    """Set ``module.<path>`` to ``value``; returns the old value (``_MISSING`` if none)."""
    m, name = _resolve(module, path)
    for store in ("_parameters", "_buffers"):
        d = getattr(m, store, None)
        if isinstance(d, dict) and name in d:
            old = d[name]
            d[name] = value
            return old
    old = getattr(m, name, _MISSING)
    if value is _MISSING:
        object.__delattr__(m, name) if name in getattr(m, "__dict__", {}) else delattr(m, name)
    else:
        try:
            setattr(m, name, value)
        except (TypeError, KeyError, AttributeError):
            object.__setattr__(m, name, value)
    return old


def functional_call(module, parameter_and_buffer_dicts, args=None, kwargs=None, *,
                    tie_weights=True, strict=False):
    """Call ``module(*args, **kwargs)`` with its parameters and buffers replaced by the
    tensors of ``parameter_and_buffer_dicts`` (a dict ``{"a.b.weight": tensor}`` or a
    tuple of dicts), restoring the originals afterwards, even on error
    (``torch.func.functional_call``).  With ``tie_weights`` a tensor given for one of
    several names sharing one parameter replaces all of them; ``strict=True`` requires
    exactly the module's parameter and buffer names (``RuntimeError`` listing the missing
    and unexpected keys).  ``ValueError`` for a key given in two dicts."""
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = dict(parameter_and_buffer_dicts)
    elif isinstance(parameter_and_buffer_dicts, (tuple, list)):
        merged = {}
        for d in parameter_and_buffer_dicts:
            dup = set(merged) & set(d)
            if dup:
                raise ValueError(f"{sorted(dup)} appeared in multiple dictionaries; behavior of "
                                 "functional call is ambiguous")
            merged.update(d)
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                         f"of dicts, but got {type(parameter_and_buffer_dicts)}")
    named = _named(module, "named_parameters") + _named(module, "named_buffers")
    known = [n for n, _ in named]
    if strict:
        missing = [k for k in known if k not in merged]
        unexpected = [k for k in merged if k not in known]
        if missing or unexpected:
            msgs = []
            if unexpected:
                msgs.append("Unexpected key(s): " + ", ".join(repr(k) for k in unexpected) + ".")
            if missing:
                msgs.append("Missing key(s): " + ", ".join(repr(k) for k in missing) + ".")
            raise RuntimeError(f"Error(s) in reparametrizing for {type(module).__name__}:\n\t"
                               + "\n\t".join(msgs))
    if tie_weights:
        groups = {}
        for n, t in named:
            groups.setdefault(id(t), []).append(n)
        for names in groups.values():
            given = [n for n in names if n in merged]
            if given and len(names) > 1:
                vals = {id(merged[n]) for n in given}
                if len(vals) > 1:
                    raise ValueError(f"functional_call got multiple values for keys {given}, "
                                     "which are tied. Consider using tie_weights=False")
                for n in names:
                    merged.setdefault(n, merged[given[0]])
    if args is None:
        args = ()
    elif not isinstance(args, tuple):
        args = (args,)
    saved = []
    try:
        for k, v in merged.items():
            saved.append((k, _swap(module, k, v)))
        return module(*args, **(kwargs or {}))
    finally:
        for k, old in reversed(saved):
            _swap(module, k, old)


def stack_module_state(models):
    """``(params, buffers)``: dicts mapping each parameter (buffer) name of the models --
    instances of one class -- to the stack of their tensors along a new dimension 0, for
    ensembling with ``vmap(functional_call ...)`` (``torch.func.stack_module_state``).
    Stacked parameters are new leaves requiring grad (when the models' do).
    ``RuntimeError`` for an empty list, mixed classes or mixed training modes."""
    models = list(models)
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)) \
            if all(hasattr(m, "training") for m in models) else False:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(m) for m in models}) != 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")

    def stack(what, leaf):
        out = {}
        for name, _ in getattr(models[0], what)():
            ts = [dict(getattr(m, what)())[name] for m in models]
            s = O.stack([t.detach() for t in ts], 0)
            if leaf and all(t.requires_grad for t in ts):
                s.requires_grad_(True)
            out[name] = s
        return out
    return stack("named_parameters", True), stack("named_buffers", False)
