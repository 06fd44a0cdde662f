"""``jit``, ``make_ir`` and ``disable_jit``: stage a function to an IR, compile it, cache it.

Design: ``jit`` is a primitive (JAX's ``pjit`` design)
--------------------------------------------------------
``jit(f)(*args)`` flattens its arguments, looks up the program staged for their pytree
structure, shapes, dtypes, weak types (Python scalars) and static argument values, and
stages ``f`` once on abstract values if there is none (:func:`ftrans.core.ir.stage`,
followed by dead-code elimination).  Then:

* with no transform active it calls the compiled program
  (``ftrans.compiler.compile_ir(ir, backend)``) directly -- the per-call fast path is a
  flatten, a tuple key, a dict lookup and the call;
* under a transform it binds :data:`jit_p`, a *primitive* whose parameter is the IR.

Because ``jit`` is a primitive, every transform reaches it through its rules, and every
rule *transforms the IR and binds* ``jit_p`` *again*:

``abstract_eval``
    the IR's output abstract values (nothing runs);
``jvp``
    the program ``(primals, nonzero tangents) -> (outputs, nonzero output tangents)``,
    staged from ``eval_ir(ir)`` under a JVP trace;
``vjp_fwd`` / ``vjp`` (reverse mode)
    the *joint* program ``(primals, output cotangents) -> (outputs, input cotangents)``
    is staged from ``eval_ir(ir)`` under a VJP trace, then split by
    :func:`~ftrans.core.ir.partition` (partial evaluation) into a forward program
    ``primals -> (outputs, residuals)``, bound by ``vjp_fwd``, and a backward program
    ``(residuals, cotangents) -> input cotangents``, bound by ``vjp`` (pruned by DCE to
    the inputs that need a cotangent);
``batch``
    the program staged from ``eval_ir(ir)`` under a batch trace, with the argument
    batch dimensions where they are.

So under ``grad``, ``jvp``, ``vmap``, ``hessian`` ... the *transformed* program runs
compiled too, forward and backward; nesting (``jit(grad(jit(f)))``) gives nested
``jit`` equations, each compiled.  Every transformed program is cached in the
transformed IR's ``ir.cache``, keyed by the transform and its static data (which
tangents are nonzero, which cotangents are needed, the batch dimensions and size),
so repeated ``grad(jit(f))`` calls stage nothing.

Why this design rather than, e.g., jitting the outer transform's result: a primitive
keeps the transforms independent of ``jit`` (they only see one more primitive with
rules), works in every nesting order, lets forward and backward passes be separate
compiled programs (as reverse mode needs: residuals cross between them), and is how JAX
does it (``pjit_p``), so the semantics users know carry over.

Caching and retracing
---------------------
Each jitted function keeps its own cache.  The key is (pytree structure of the dynamic
arguments, per leaf: shape and dtype -- a Python scalar counts as a *weakly typed* 0-d
value of its kind, ``bool``/``int``/``float``/``complex``, whatever its value -- the
static arguments' values (and types), and the array type for arrays other than NumPy
arrays).  Changing any of these stages the function again; changing values does not.
Arrays the function reads from globals or closures are baked into the program when it
is staged (constants), as in JAX: the program keeps a *copy* taken at staging time
(:class:`ftrans.core.ir.StagingTrace` snapshots every constant, whatever its memory
layout), so mutating such an array in place later does not change what the cached
program computes -- call ``f._clear_cache()`` (or pass the array as an argument) to
use the new values.  Every call returns fresh arrays: an output that is a constant of
the program (``fnp.zeros_like(x)``, a closed-over array, a view of one) is copied
before it is returned, so mutating a result never changes a later one.  An argument
returned unchanged (``jit(lambda x: x)``) is returned as is, as eager ftrans does (it is
the caller's buffer; jit keeps no reference to it).  A function that closes over a value traced by an
*enclosing* transform gets it as an extra input (closure conversion); such a program is
not cached, since the enclosing value is new on every call.

Python scalars
--------------
A Python scalar argument is staged as a weakly typed 0-d input (NEP 50): it adopts the
dtype of the array it meets, as in eager ftrans, so ``jit(f)(x32, 2.0)`` keeps float32
where ``f(x32, 2.0)`` does.  It is passed to the program unchanged.  Arithmetic between
two Python scalar *arguments* inside the function is array arithmetic (a 0-d float64 /
int64 result, as NumPy scalars give), where eager Python arithmetic would give a Python
scalar again; mark such arguments static if that matters.

Backends
--------
NumPy arrays (and Python/NumPy scalars) run ``compile_ir(ir, "cpu")``, CuPy arrays
``compile_ir(ir, "gpu")``; any other array type (Dask, array-API arrays) runs the
program with each primitive's ``impl``, which dispatches on the array's namespace (no
silent conversion to NumPy).

``donate_argnums`` is accepted and validated for JAX compatibility; NumPy cannot donate
a buffer, and ftrans never reuses an input's memory, so it has no effect on the CPU (nor
on the GPU at present).

``disable_jit()`` (thread-local context manager) makes jitted functions call the Python
function itself, eagerly, for debugging with ``print`` and ``pdb``.
"""
from __future__ import annotations

import contextlib
import functools
import gc
from collections import OrderedDict
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Literal

import numpy as np

from ..core.trace import _ctx, EVAL
from ..core import debug
from .. import config
from ..core.ir import IR, ConcretizationError  # noqa: F401
from ..core.pytree import tree_flatten, tree_unflatten
from ._jit_args import _normalize_static, _split, _stage_call
from ._jit_primitive import jit_p
from ._jit_run import _fast_key, _fast_runner, _run
from ._stages import decorator_factory, stages_of
from ..typing import PyTree

__all__ = ["jit", "make_ir", "disable_jit", "jit_p", "jit_disabled", "RetraceWarning"]


# ---------------------------------------------------------------------------------
# disable_jit
# ---------------------------------------------------------------------------------
class _JitState(threading.local):
    disabled = False


_state = _JitState()
_n_disabled = 0  # active disable_jit() blocks in all threads: the fast path's cheap check
_n_lock = threading.Lock()


def jit_disabled() -> bool:
    """True inside ``with ftrans.disable_jit():`` in this thread."""
    return _state.disabled


class disable_jit:
    """Context manager: inside it, jitted functions run eagerly, in this thread only.

    Jitted functions then call the Python function itself, op by op.  Use it to debug
    a jitted function with ``print`` or ``pdb``: values are concrete, and Python
    control flow on them works.  ``disable_jit(False)`` re-enables jit inside an outer
    ``disable_jit()`` block.  Nesting restores the previous state on exit.

    Parameters
    ----------
    disable : bool, default True
        Whether jit is disabled inside the block.

    Notes
    -----
    As ``jax.disable_jit``
    (https://docs.jax.dev/en/latest/_autosummary/jax.disable_jit.html); the setting
    applies to the current thread.

    Examples
    --------
    >>> import ftrans, numpy as np
    >>> f = ftrans.jit(lambda x: float(x.sum()) if x.sum() > 0 else 0.0)
    >>> with ftrans.disable_jit():
    ...     f(np.ones(3))
    3.0
    """

    __slots__ = ("disable", "prev")

    def __init__(self, disable: bool = True) -> None:
        self.disable = bool(disable)

    def __enter__(self) -> disable_jit:
        global _n_disabled
        self.prev = _state.disabled
        _state.disabled = self.disable
        if self.disable:
            with _n_lock:
                _n_disabled += 1
        return self

    def __exit__(self, *exc: object) -> Literal[False]:
        global _n_disabled
        _state.disabled = self.prev
        if self.disable:
            with _n_lock:
                _n_disabled -= 1
        return False


# ---------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------
def _fun_name(fun: Callable[..., Any]) -> str:
    return getattr(fun, "__name__", None) or type(fun).__name__


def make_ir(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
            static_argnames: str | Sequence[str] = ()) -> Callable[..., IR]:
    """The IR of ``fun`` for given arguments (JAX's ``make_jaxpr``).

    The IR is the typed program :func:`jit` compiles: inputs, one equation per
    primitive applied, outputs and constants.

    Parameters
    ----------
    fun : callable
        Takes pytrees of arrays / Python scalars (and static arguments).
    static_argnums : int or sequence of int, default ()
        Positional arguments that are not traced: their values are used as Python
        values while staging (they must be hashable).
    static_argnames : str or sequence of str, default ()
        Keyword arguments that are not traced, likewise.

    Returns
    -------
    callable
        ``(*args, **kwargs) -> IR``.  The IR's inputs are the flattened dynamic argument
        leaves (positional arguments, then keyword arguments by sorted name), preceded by
        any value of an enclosing transform that ``fun`` closes over; its outputs are the
        flattened output leaves.  ``str(ir)`` lists one equation per line with shapes and
        dtypes.

    Raises
    ------
    ConcretizationError
        If ``fun`` branches on or converts a traced value (``if x > 0``, ``float(x)``).
    TypeError
        For a non-array dynamic argument or an unhashable static argument.
    ValueError
        When ``make_ir`` is called, for ``static_argnums``/``static_argnames`` that
        ``fun``'s signature cannot take (as :func:`jit`).

    Notes
    -----
    ``jax.make_jaxpr``
    (https://docs.jax.dev/en/latest/_autosummary/jax.make_jaxpr.html) under ftrans's
    name; ``ftrans.make_jaxpr`` takes JAX's arguments.

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp, numpy as np
    >>> print(ftrans.make_ir(lambda x, y: fnp.sin(x) * y)(np.ones(3), 2.0))
    ir(a:f64[3], b:f64[]) {
      c:f64[3] = sin a
      d:f64[3] = mul c b
      return d
    }
    """
    who = f"make_ir({_fun_name(fun)})"
    nums, names = _normalize_static(fun, static_argnums, static_argnames, who)

    @functools.wraps(fun)
    def make(*args: Any, **kwargs: Any) -> IR:
        call = _split(who, args, kwargs, nums, names)
        return _stage_call(fun, who, call, nums).ir

    return make


@decorator_factory
def jit(fun: Callable[..., Any], static_argnums: int | Sequence[int] = (),
        static_argnames: str | Sequence[str] = (),
        donate_argnums: int | Sequence[int] = ()) -> Callable[..., Any]:
    """Stage ``fun`` to an IR once per argument signature, compile it, and cache it.

    The program is compiled for the CPU (numba) or the GPU (CuPy) by
    :mod:`ftrans.compiler`; under a transform the jitted call is one primitive whose
    rules transform the program (module docstring).  Called with keyword options only
    (``@jit(static_argnames="n")``) it returns a decorator.

    Parameters
    ----------
    fun : callable
        A function of pytrees of arrays and Python scalars written with ftrans
        operations (``ftrans.numpy``, ``ftrans.lax``); it must be pure (its side
        effects, such as ``print``, run only while it is staged).
    static_argnums : int or sequence of int, default ()
        Positional arguments used as Python values while staging (hashable; a new
        value stages the function again).  Negative indices count from the end.
    static_argnames : str or sequence of str, default ()
        Keyword arguments used the same way.  A parameter named in one of the two is
        static whichever way it is passed.
    donate_argnums : int or sequence of int, default ()
        Accepted for compatibility with JAX and validated; it has no effect (NumPy
        cannot donate buffers; ftrans never reuses an input's memory).

    Returns
    -------
    callable
        Same signature, values and output pytree as ``fun``; results are arrays,
        fresh on every call (never a buffer the program keeps, such as a constant it
        returns; an argument returned unchanged is that argument, as eagerly).  Arrays ``fun`` closes over are snapshotted when it is staged:
        mutating them in place afterwards does not change the cached program (as in
        JAX; ``._clear_cache()`` stages again).  ``._cache_size()`` is the number of programs cached and ``._trace_count()``
        the number of times ``fun`` was staged.  Under ``ftrans.disable_jit()`` it
        calls ``fun`` itself.  In debug_nans mode (:mod:`ftrans.config`) the outputs
        are checked, and a NaN makes it run ``fun`` again eagerly, which raises
        ``FloatingPointError`` at the primitive that produced it.

    Raises
    ------
    ConcretizationError
        (a ``TypeError``) when ``fun`` branches on or converts a traced value: make that argument
        static, or use ``ftrans.lax.cond``/``while_loop``/``fnp.where``.
    TypeError
        For a dynamic argument that is not an array or Python scalar (make it static),
        an unhashable static argument, or bad ``static_argnums``/``donate_argnums``.
    ValueError
        A ``donate_argnums`` entry that is also static, or repeated; when ``jit`` is
        called, a ``static_argnums`` entry beyond ``fun``'s positional parameters or a
        ``static_argnames`` entry that is not one of its parameters (unless ``fun``
        takes ``*args`` / ``**kwargs``), as JAX.

    Notes
    -----
    Follows ``jax.jit`` (https://docs.jax.dev/en/latest/_autosummary/jax.jit.html):
    the same caching key (structure, shapes, dtypes, weak types, static values), the
    same treatment of closed-over arrays as constants, and JAX's ahead-of-time API
    (``.trace``, ``.lower``, ``.compile``).

    Examples
    --------
    >>> import ftrans, ftrans.numpy as fnp, numpy as np
    >>> f = ftrans.jit(lambda x: fnp.sum(fnp.tanh(x) ** 2))
    >>> float(f(np.zeros(3))), f._trace_count()
    (0.0, 1)
    >>> g = ftrans.jit(ftrans.grad(f))   # compiled forward and backward
    >>> @ftrans.jit(static_argnames="n")  # only options: a decorator (as JAX's jit)
    ... def power(x, n):
    ...     return x ** n
    >>> print(power.lower(np.ones(2), n=3).as_text())  # the staged program (JAX's AOT API)
    ir(a:f64[2]) {
      b:f64[2] = integer_pow[n=3] a
      return b
    }
    """
    if not callable(fun):
        raise TypeError(f"jit expects a callable, got {type(fun).__name__}")
    name = _fun_name(fun)
    who = f"jit({name})"
    nums, names = _normalize_static(fun, static_argnums, static_argnames, who)
    donate = _check_donate(donate_argnums, nums, who)
    del donate  # no effect: see the docstring
    cache: dict[Any, Any] = {}  # full key -> _Staged
    # (shape, dtype)s of all-ndarray calls -> runner, least recently used first
    fast: OrderedDict[Any, Callable[..., Any]] = OrderedDict()
    fast_owner: dict[Any, Any] = {}  # fast key -> the cache key of its program
    counter = [0]
    simple = not nums and not names

    last_keys: list[Any] = []

    def slow_call(args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        call = _split(who, args, kwargs, nums, names)
        staged = cache.pop(call.key, None)
        if staged is not None:
            cache[call.key] = staged  # most recently used last
            return run_staged(staged, call, args, kwargs)
        with _gc_paused():  # a new signature: trace, compile and run
            counter[0] += 1
            _note_retrace(who, counter[0], last_keys, call.key)
            staged = _stage_call(fun, who, call, nums)
            if not staged.lifted:
                cache[call.key] = staged
                if len(cache) > config.jit_cache_size:
                    _evict(cache, fast, fast_owner, call.key)
            return run_staged(staged, call, args, kwargs)

    def run_staged(staged: Any, call: Any, args: tuple[Any, ...], kwargs: dict[str, Any]
                   ) -> Any:
        leaves = staged.lifted + call.leaves
        ir = staged.ir
        if _ctx.trace is EVAL:
            outs = _run(ir, leaves)
        else:
            outs = jit_p.bind(*leaves, ir=ir, name=name)
        out_tree = staged.out_tree
        if simple and not kwargs and _ctx.trace is EVAL and not staged.lifted:
            fast_key = _fast_key(args)
            if fast_key is not None and fast_key not in fast:
                fast[fast_key] = _fast_runner(ir, out_tree)  # this signature's fast path
                fast_owner[fast_key] = call.key
        return tree_unflatten(out_tree, outs)

    @functools.wraps(fun)
    def jitted(*args: Any, **kwargs: Any) -> Any:
        if debug.nans:
            return _nan_checked_call(fun, who, slow_call, args, kwargs)
        # fast path: positional NumPy arrays, no transform active, a signature seen before
        if not kwargs and _ctx.trace is EVAL and not (_n_disabled and _state.disabled):
            if len(args) == 1:
                a = args[0]
                if type(a) is np.ndarray:
                    k1 = (a.shape, a.dtype)
                    run = fast.get(k1)
                    if run is not None:
                        fast.move_to_end(k1)  # (recency, for the cache bound)
                        return run(a)
            else:
                key = _fast_key(args)
                if key is not None:
                    run = fast.get(key)
                    if run is not None:
                        fast.move_to_end(key)
                        return run(*args)
        elif _state.disabled:
            return fun(*args, **kwargs)
        return slow_call(args, kwargs)

    # the jitted function's own methods (attributes of a function: ignored by mypy)
    jitted._cache_size = lambda: len(cache)  # type: ignore[attr-defined]
    jitted._trace_count = lambda: counter[0]  # type: ignore[attr-defined]
    def clear_cache() -> None:
        cache.clear()
        fast.clear()
        fast_owner.clear()

    jitted._clear_cache = clear_cache  # type: ignore[attr-defined]
    jitted._cached_irs = lambda: [s.ir for s in cache.values()]  # type: ignore[attr-defined]
    jitted.trace, jitted.lower = stages_of(  # type: ignore[attr-defined]
        fun, who, nums, names)  # JAX's AOT stages
    return jitted


class RetraceWarning(UserWarning):
    """A jitted function keeps being traced for new argument signatures.

    Issued once per jitted function after :data:`ftrans.config.RETRACE_WARN_AFTER`
    traces (torch's ``recompile_limit`` is 8).  Each trace stages the Python function
    again; the generated code is shared by every shape of one rank and dtype, so what
    changes ranks, dtypes, pytree structure or static arguments costs most.
    """


def _evict(cache: dict[Any, Any], fast: OrderedDict[Any, Any], owner: dict[Any, Any],
           new: Any) -> None:
    """Drop the least recently used program but ``new`` (calls through the fast path
    count: their recency is merged into the cache's order first) and its fast-path
    runners."""
    for k in fast:  # least recently used first
        ck = owner.get(k)
        if ck in cache:
            cache[ck] = cache.pop(ck)
    cache[new] = cache.pop(new)
    old = next(iter(cache))
    del cache[old]
    for k in [k for k, ck in owner.items() if ck == old]:
        del owner[k]
        fast.pop(k, None)


def _describe_change(old: Any, new: Any) -> str:
    """What differs between two cache keys ``(in_tree, static, leaf keys)``."""
    if old[0] != new[0]:
        return "the pytree structure of the arguments"
    if old[1] != new[1]:
        return "a static argument's value"
    diffs = [f"leaf {i}: {a} -> {b}" for i, (a, b) in enumerate(zip(old[2], new[2]))
             if a != b]
    return "; ".join(diffs[:3]) or "the arguments"


@contextlib.contextmanager
def _gc_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused (while a call traces and compiles),
    resumed after, errors included; nothing when it is already off.

    Tracing and numba's compiler allocate hundreds of thousands of objects, and each
    time the collector's thresholds trip it walks every live object of the process
    (numba's and ftrans's caches: about half a million): ``benchmarks/compile_time.py``'s
    first call of ``jit(grad(f))`` took 6.9 s with it and 6.2 s without; a new shape's
    retrace costs the same either way (medians over five shapes).  What became garbage
    meanwhile is collected at the collector's next turn; the peak resident memory of that
    first call was 33 MB higher."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _note_retrace(who: str, count: int, last: list[Any], key: Any) -> None:
    """Remember ``key``; warn once when the function passes the retrace limit."""
    if count == config.RETRACE_WARN_AFTER + 1 and last:
        warnings.warn(
            f"{who} was traced {count} times, for new argument signatures each time; "
            f"the last change: {_describe_change(last[0], key)}.  Mark arguments that "
            "select code paths as static (static_argnums), pad inputs to a few sizes, or "
            "raise ftrans.config.update('jit_cache_size', n) if signatures alternate",
            RetraceWarning, stacklevel=4)
    last[:] = [key]


def _nan_checked_call(fun: Callable[..., Any], who: str,
                      slow_call: Callable[[tuple[Any, ...], dict[str, Any]], PyTree],
                      args: tuple[Any, ...], kwargs: dict[str, Any]) -> PyTree:
    """A jitted call in debug_nans mode: the compiled program's outputs are checked;
    when one holds a NaN, ``fun`` runs again eagerly (``disable_jit``) on the same
    arguments, so that the first primitive producing a NaN is named with its line."""
    if _state.disabled:
        return fun(*args, **kwargs)
    try:
        out = slow_call(args, kwargs)
    except FloatingPointError as e:
        # debug_nans' own error (it has ``primitive``): for the jit primitive under a
        # transform, or for one of the program's equations run by an interpreter
        if not hasattr(e, "primitive"):
            raise
    else:
        if not debug.has_nan(tree_flatten(out)[0]):
            return out
    with disable_jit():
        fun(*args, **kwargs)  # raises at the first primitive producing a NaN
    debug.raise_nan(f"the output of {who} (compiled), but not when it ran again eagerly "
                    "under ftrans.disable_jit() (a difference of the compiled arithmetic)",
                    "jit")


def _check_donate(donate_argnums: Any, static_nums: Sequence[int], who: str
                  ) -> tuple[int, ...]:
    if isinstance(donate_argnums, (int, np.integer)) and not isinstance(donate_argnums, bool):
        donate_argnums = (donate_argnums,)
    try:
        donate = tuple(donate_argnums)
    except TypeError:
        raise TypeError(f"{who}: donate_argnums must be an int or a sequence of ints, got "
                        f"{donate_argnums!r}") from None
    if not all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in donate):
        raise TypeError(f"{who}: donate_argnums must be ints, got {donate_argnums!r}")
    if len(set(donate)) != len(donate):
        raise ValueError(f"{who}: donate_argnums={donate_argnums!r} names an argument twice")
    both = set(donate) & set(static_nums)
    if both:
        raise ValueError(f"{who}: argument(s) {sorted(both)} are both static and donated; a "
                         "static argument is a Python value, not a buffer that can be donated")
    return donate
