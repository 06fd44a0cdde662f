"""Losses over chunked Dask arrays: fits in one call, gradients on the workers.

Three levels, from the most to the least automatic:

* :class:`Objective` and :func:`minimize` -- a per-example (or per-chunk) loss over Dask
  arrays ``X``, ``y`` (and row weights), its mean or sum and a penalty
  (:func:`l2`, :func:`smooth_l1`, any function of the parameters); the data are persisted
  on the workers once and every evaluation is one Dask graph with one task per chunk.
  ``minimize`` runs :func:`scipy.optimize.minimize` with the gradient (and the
  Hessian-vector product for Newton-CG and the trust-region methods)::

      obj = ftrans.dask.Objective(per_row_loss, X, y, penalty=ftrans.dask.l2(1e-3))
      res = ftrans.dask.minimize(obj, w0)

* :func:`value_and_grad` / :func:`grad` -- the value and gradient of any function that is
  a *sum over the rows* of its Dask arguments: one task per chunk runs
  ``ftrans.value_and_grad`` on NumPy blocks, and a tree reduction adds the results
  (means are not sums: divide outside, or use :class:`Objective`).
* **Operation by operation** -- :func:`ftrans.grad` (``value_and_grad``, ``vjp``, ``jvp``,
  ``hvp``, ``vmap``) on the function directly: every primitive adds lazy tasks to a Dask
  graph (``ftrans.kernels.xp``), for functions that are not sums over rows (a gradient
  with respect to the chunked data itself, ...).  The graph has a few tasks per primitive
  per chunk, and every call builds a new one.

Dask is the distributed engine: whatever scheduler is active (threads, processes, a
``distributed`` cluster) runs the graph.  ftrans writes no cluster code of its own.
"""
from ._chunks import grad, value_and_grad
from ._minimize import minimize
from ._objective import Objective
from ._penalty import l2, smooth_l1

__all__ = ["Objective", "minimize", "l2", "smooth_l1", "value_and_grad", "grad"]
