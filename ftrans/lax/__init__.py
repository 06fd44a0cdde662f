"""Structured control flow as primitives: ``cond``, ``switch``, ``while_loop``,
``fori_loop``, ``scan``, ``map`` and ``select`` (JAX's ``jax.lax`` signatures and
semantics).

Python ``if``/``for``/``while`` on a traced value cannot be recorded by ``jit`` (it
raises :class:`~ftrans.core.ir.ConcretizationError`), and a Python loop unrolled by
``grad`` keeps one tape entry per operation per iteration.  These functions make the
branch or the loop *one* primitive whose parameters hold the staged sub-programs
(:class:`~ftrans.core.ir.IR`), traced once on the abstract values (shape, dtype) of
the operands or of the loop carry:

==========  ==========================================  ================================
primitive   operands                                    params
==========  ==========================================  ================================
``cond``    ``index, *closed, *operands``               ``branches`` (tuple of IRs)
``while``   ``*cond_closed, *body_closed, *carry``      ``cond``, ``body``, ``n_cond``,
                                                        ``n_body``
``scan``    ``*consts, *carry, *xs``                    ``body``, ``n_consts``,
                                                        ``n_carry``, ``length``,
                                                        ``reverse``, ``unroll``
==========  ==========================================  ================================

Arguments and results are pytrees (flattened with :mod:`ftrans.core.pytree`).  Traced
values of enclosing transforms that a branch or body *closes over* are lifted by
:func:`~ftrans.core.ir.stage` into explicit leading operands (closure conversion), so
``grad`` with respect to a closed-over weight, or ``vmap`` over it, is exact.

Rules (each binds the same primitives again, so they nest under every transform and
stage as ordinary equations inside ``jit``):

* **impl** (eager): a Python loop drives the body of ``while``/``scan``; each
  sub-program runs through the reference executor until programs of its text have
  spent ``EAGER_COMPILE_AFTER_S`` (1 s) there, then through
  ``ftrans.compiler.compile_ir(ir)`` (``_programs._Tiered``): a short eager loop never
  waits for numba.  Under ``jit`` they are part of the compiled program.
* **JVP**: ``cond`` of the JVP'd branches; ``while`` of the JVP'd body (carry tangents
  joined to a fixed point of which are nonzero); ``scan`` of the JVP'd body.
* **VJP**: each branch's or body's joint forward + VJP program is staged and split by
  :func:`~ftrans.core.ir.partition` into a forward program that also returns the
  *residuals* and a backward program that starts from them.  ``cond``: a forward
  ``cond`` returns the outputs and the residual slots of every branch (zeros for the
  branches not taken), a backward ``cond`` computes the cotangents from the taken
  branch's slots.  ``scan``: the forward scan also emits the per-iteration residuals
  (stacked along the scan axis), and a backward scan runs in the opposite direction
  over them, carrying the carry's cotangent and accumulating the loop-invariant
  operands' cotangents; it computes only the cotangents the operands need.  Residuals
  are what reverse mode's tape would save (each rule's primal operands), so a
  ``ftrans.checkpoint``-ed body saves only its inputs per iteration and recomputes the
  rest.  ``while`` has no reverse mode (the trip count is unknown before running, as in
  JAX): it raises ``ValueError`` pointing to ``scan`` and static-bound ``fori_loop``.
* **batching**: an unbatched predicate/index keeps one branch/loop over batched
  operands; a batched ``cond`` index runs every branch and selects per example; a
  batched ``while`` predicate runs until every example is done, freezing finished ones
  with ``select``; ``scan`` batches its body (batch axis after the scan axis).

Inside ``with ftrans.disable_jit():`` they run as Python control flow (a Python ``if``,
``while`` and ``for`` on concrete values), as JAX's do, so branches and bodies can be
debugged with ``print``; reverse mode then goes through the Python loop.

Files: ``_programs.py`` (staging user functions, the program transformations the rules
are made of), ``_cond.py`` (``cond``, ``switch``, ``select``), ``_loops.py``
(``while_loop``, ``fori_loop``), ``_scan.py`` (``scan``, ``map``).

The elementwise and structural operations JAX code calls directly (``add``, ``mul``,
``exp``, ``dot_general``, ``broadcast_in_dim``, ``pad``, ``select_n``, ``clamp`` ...,
:mod:`ftrans.lax._ops`) are the existing primitives with ``jax.lax``'s strict contract:
no dtype promotion and no rank broadcasting (``TypeError``, as JAX).

``conv_general_dilated`` and ``reduce_window`` (``"sum"``, ``"max"``, ``"avg"``) are
re-exported here from :mod:`ftrans.primitives` for users, as in ``jax.lax``.

References: JAX's ``jax.lax`` documentation (control flow operators) for signatures,
semantics and error rules; the partial-evaluation scheme is JAX's
``partial_eval_jaxpr_nounits`` ("You only linearize once", Radul et al., 2022).

>>> import numpy as np, ftrans, ftrans.numpy as fnp
>>> from ftrans import lax
>>> lax.fori_loop(0, 5, lambda i, x: x * 2.0, 1.0)
array(32.)
>>> def rnn(w, xs):
...     h, _ = lax.scan(lambda h, x: (fnp.tanh(w * h + x), None), 0.0, xs)
...     return h
>>> g = ftrans.grad(rnn)(0.5, np.ones(3))
"""
from ._cond import cond, switch, select, cond_p
from ._loops import while_loop, fori_loop, while_p
from ._scan import scan, map, scan_p
# the structural primitives users call directly (defined with their rules in primitives/)
from ..primitives.conv import conv_general_dilated
from ..primitives.window import reduce_window, reduce_window_sum, reduce_window_max
from . import _ops
from ._ops import *  # noqa: F401,F403  (jax.lax's elementwise/structural operations)
from . import _cumulative
from ._cumulative import *  # noqa: F401,F403  (cumsum, cumprod, cummax, cummin, cumlogsumexp)
from . import _dynamic
from ._dynamic import *  # noqa: F401,F403  (dynamic_slice, dynamic_update_slice, *_in_dim)
from ._associative import associative_scan

__all__ = ["cond", "switch", "while_loop", "fori_loop", "scan", "map", "select",
           "cond_p", "while_p", "scan_p", "conv_general_dilated", "reduce_window",
           "reduce_window_sum", "reduce_window_max", *_ops.__all__, *_cumulative.__all__,
           *_dynamic.__all__, "associative_scan"]
