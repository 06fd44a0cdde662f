"""``ftrans.dask.Objective``: a loss over chunked Dask data, its value, gradient and
Hessian-vector products as NumPy arrays for SciPy's optimizers."""
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any

import numpy as np

from ..transforms import hvp as _hvp
from ..transforms import value_and_grad as _value_and_grad
from ._kernel import Kernel, Spec, head, identity, run_chunk, sum_parts
from ..typing import Array, ArrayLike, PyTree

__all__ = ["Objective"]

_PER = ("example", "chunk")
_REDUCTIONS = ("mean", "sum")
_HESSIANS = ("exact", "gauss-newton")


def _as_rows(name: str, a: Any, X: Any) -> Any:
    """``a`` (Dask or NumPy, first axis the rows) as a Dask array with X's row chunks."""
    import dask.array as da
    if a is None:
        return None
    if not isinstance(a, da.Array) and not (hasattr(a, "shape") and hasattr(a, "dtype")):
        raise TypeError(f"ftrans.dask.Objective: {name} must be a dask.array.Array or a "
                        f"NumPy array; got {type(a).__name__}")
    if len(a.shape) == 0 or a.shape[0] != X.shape[0]:
        raise ValueError(f"ftrans.dask.Objective: {name} has shape {a.shape}; expected "
                         f"{X.shape[0]} rows (axis 0), as many as X {X.shape}")
    if not isinstance(a, da.Array):
        a = da.from_array(a, chunks=(X.chunks[0],) + tuple((s,) for s in a.shape[1:]))
    want = (X.chunks[0],) + tuple((s,) for s in a.shape[1:])
    return a if a.chunks == want else a.rechunk(want)


class Objective:
    """A loss summed or averaged over the rows of Dask arrays, for SciPy's optimizers.

    ``L(p) = R_b(l(p; X_b, y_b, w_b)) + penalty(p)``: the losses of the rows of every row
    block ``b`` (chunk) of ``X`` (and of ``y`` and ``weights``, which get X's row chunks),
    reduced by the library over all the chunks, plus a penalty on the parameters.  The
    data are persisted on the workers once, at construction; each evaluation is one Dask
    graph (one task per chunk, a tree reduction) with the parameters sent once.

    Parameters
    ----------
    loss : callable
        Written with ``ftrans.numpy``, called on each chunk's NumPy blocks.

        * ``per="example"`` (default): ``loss(params, X_b, y_b)`` returns the rows'
          losses, shape ``(rows_b,)``; with ``model=``, ``loss(model(params, X_b), y_b)``.
          The Objective multiplies by the weights and sums.
        * ``per="chunk"``: ``loss(params, X_b, y_b[, w_b])`` returns the chunk's *sum*
          of the (weighted) losses, a scalar.

        (``y_b`` is left out when ``y`` is None.)
    X : dask.array.Array, shape (N, ...)
        Features; chunks along axis 0 are the row blocks (any sizes, unequal allowed);
        other axes are rechunked to one chunk.
    y : dask.array.Array or numpy.ndarray, shape (N, ...), optional
        Targets, rechunked to X's row chunks.
    weights : dask.array.Array or numpy.ndarray, shape (N,), optional
        Non-negative row weights, rechunked to X's row chunks.
    model : callable, optional
        ``model(params, X_b) -> z_b`` (``per="example"`` only); ``loss(z_b, y_b)`` is then
        the rows' losses in the model's outputs; enables the Gauss-Newton product.
    per : {"example", "chunk"}, default "example"
        What ``loss`` returns: one loss per row, or the chunk's sum (above).
    reduction : {"mean", "sum"}, default "mean"
        ``"sum"``: ``sum_i w_i l_i``; ``"mean"``: ``sum_i w_i l_i / sum_i w_i`` (``/ N``
        without weights), the weighted average of :func:`numpy.average` -- every row counts
        once whatever the size of its chunk.
    penalty : callable, optional
        ``penalty(params) -> scalar`` added after the reduction (not divided by N):
        :func:`ftrans.dask.l2`, :func:`ftrans.dask.smooth_l1` or any ftrans-differentiable
        function; evaluated on the client.
    hessian : {"exact", "gauss-newton"}, optional
        The product :meth:`hvp` computes: the exact Hessian's (forward over reverse,
        default without ``model``) or the generalized Gauss-Newton matrix ``J^T H_l J``
        (default with ``model``; Schraudolph 2002, Martens 2010), which is positive
        semi-definite for a convex loss, as Newton-CG wants.
    client : distributed.Client, optional
        Default: the current client (``distributed.get_client()``).
    split_every : int, default 8
        Fan-in of the reduction tree (>= 2).

    Attributes
    ----------
    n_rows : int
        The number of rows ``N``.
    rows : list of (start, stop)
        The rows of each chunk.
    normalizer : float
        What the summed loss is divided by: ``N`` or the sum of the weights for
        ``"mean"``, 1 for ``"sum"``.
    evaluations : int
        Graphs run so far (value and gradient, or Hessian-vector product).
    seconds : float
        Wall time spent in them.

    Raises
    ------
    ValueError
        Unknown ``per``/``reduction``/``hessian``; ``y`` or ``weights`` with another number
        of rows than ``X``; negative weights or a zero total weight with ``"mean"``; no
        client.  At evaluation: a loss returning the wrong shape (a scalar from the
        per-example form, a vector from the per-chunk form), or a per-chunk loss that is
        not a sum over the rows (for instance a mean), naming the chunk.
    TypeError
        ``X`` not a Dask array; a loss returning a non-floating dtype (naming the chunk).

    Notes
    -----
    Why two forms and who reduces: a mean over the rows is not the sum of the chunks'
    means, and writing ``mean`` for ``sum`` in a per-chunk loss would scale the result by
    the number of chunks with no error.  So the recommended form (``per="example"``)
    returns one loss per row and the library does every reduction, weighting each chunk by
    its number of rows (or its weights); a scalar from it is refused.  The per-chunk form
    (for losses that are cheaper summed in place) is checked once, at the first
    evaluation: the loss on the first rows of chunk 0 must equal the sum of the losses on
    their two halves, which a mean (or a constant term such as a penalty inside the loss)
    fails; the error says so.

    Each evaluation: one task per chunk, depending only on the chunk's persisted blocks
    and on the kernel (the user's functions, sent to the cluster once as a future).  The
    parameters travel inside the tasks when ``n_chunks * nbytes <= inline_bytes`` (4 MiB),
    else as one key of the graph; the chunks' results are added on the client in chunk
    order when they total at most ``gather_bytes`` (16 MiB), else by a reduction tree
    (``split_every``) on the cluster.  Either way the order of the additions is fixed, so
    a recomputed chunk (a lost worker) gives the same bits.

    Examples
    --------
    >>> import numpy as np, dask.array as da, distributed, ftrans.dask, ftrans.numpy as fnp
    >>> client = distributed.Client(processes=False, n_workers=1, dashboard_address=":0")
    >>> X = da.from_array(np.arange(12.0).reshape(6, 2), chunks=(4, 2))   # chunks 4 + 2
    >>> y = da.from_array(np.ones(6), chunks=3)
    >>> sq = lambda w, X, y: (X @ w - y) ** 2                              # one loss per row
    >>> obj = ftrans.dask.Objective(sq, X, y, reduction="mean")
    >>> v, g = obj.value_and_grad(np.zeros(2))
    >>> float(v), g.tolist()
    (1.0, [-10.0, -12.0])
    >>> client.close()
    """

    def __init__(self, loss: Callable[..., Any], X: Any, y: Any = None, weights: Any = None, *,
                 model: Callable[..., Any] | None = None, per: str = "example",
                 reduction: str = "mean", penalty: Callable[[PyTree], Any] | None = None,
                 hessian: str | None = None, client: Any = None,
                 split_every: int = 8) -> None:
        import dask.array as da
        import distributed
        from dask.core import flatten
        if per not in _PER:
            raise ValueError(f"ftrans.dask.Objective: per must be one of {_PER}; got {per!r}")
        if reduction not in _REDUCTIONS:
            raise ValueError(f"ftrans.dask.Objective: reduction must be one of {_REDUCTIONS};"
                             f" got {reduction!r}")
        if hessian is None:
            hessian = "gauss-newton" if model is not None else "exact"
        if hessian not in _HESSIANS:
            raise ValueError(f"ftrans.dask.Objective: hessian must be one of {_HESSIANS}; "
                             f"got {hessian!r}")
        if hessian == "gauss-newton" and model is None:
            raise ValueError("ftrans.dask.Objective: hessian='gauss-newton' needs model= "
                             "(the Jacobian is the model's, the curvature the loss's)")
        if model is not None and per != "example":
            raise ValueError("ftrans.dask.Objective: model= needs per='example' (the loss "
                             "is then loss(model(params, X_b), y_b), one value per row)")
        if split_every < 2:
            raise ValueError(f"ftrans.dask.Objective: split_every must be at least 2, got "
                             f"{split_every}")
        if penalty is not None and not callable(penalty):
            raise TypeError(f"ftrans.dask.Objective: penalty must be a function of the "
                            f"parameters; got {type(penalty).__name__}")
        if not isinstance(X, da.Array):
            raise TypeError(f"ftrans.dask.Objective: X must be a dask.array.Array; got "
                            f"{type(X).__name__} (wrap it with dask.array.from_array(X, "
                            f"chunks=...), or use ftrans.value_and_grad for in-memory data)")
        if X.ndim == 0:
            raise ValueError("ftrans.dask.Objective: X must have a row axis (axis 0)")
        if client is None:
            try:
                client = distributed.get_client()
            except ValueError:
                raise ValueError("ftrans.dask.Objective: no distributed client; create one "
                                 "(distributed.Client(...)) or pass client=") from None
        want = (X.chunks[0],) + tuple((s,) for s in X.shape[1:])
        X = X if X.chunks == want else X.rechunk(want)
        y, weights = _as_rows("y", y, X), _as_rows("weights", weights, X)
        self.client, self.per, self.reduction = client, per, reduction
        self.penalty, self.hessian, self.split_every = penalty, hessian, split_every
        self.n_rows = X.shape[0]
        bounds = np.cumsum((0,) + X.chunks[0])
        self.rows = [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        # persist once: the blocks stay in the workers' memory while this object lives
        arrays = [a for a in (X, y, weights) if a is not None]
        persisted = client.persist(arrays)
        futs = {f.key: f for f in distributed.futures_of(persisted)}
        blocks = [[futs[k] for k in flatten(a.__dask_keys__())] for a in persisted]
        distributed.wait([f for bl in blocks for f in bl])
        it = iter(blocks)
        self._X = next(it)
        self._y = next(it) if y is not None else [None] * len(self.rows)
        self._w = next(it) if weights is not None else [None] * len(self.rows)
        self.normalizer = 1.0
        if weights is not None:
            wp = persisted[-1]
            total, low = client.compute([wp.sum(), wp.min()], sync=True)
            if low < 0:
                raise ValueError(f"ftrans.dask.Objective: weights must be non-negative; the "
                                 f"smallest is {low}")
            self.weight_sum = float(total)
        else:
            self.weight_sum = float(self.n_rows)
        if reduction == "mean":
            if self.weight_sum <= 0:
                raise ValueError("ftrans.dask.Objective: the weights sum to 0; a mean needs "
                                 "a positive total weight (or use reduction='sum')")
            self.normalizer = self.weight_sum
        self._kernel_obj = Kernel(loss, model, per, y is not None, weights is not None)
        # the kernel (the user's functions) goes to the cluster once; every evaluation's
        # tasks depend on this future instead of carrying a pickled copy each
        self._kernel = client.submit(identity, self._kernel_obj, pure=False,
                                     key=f"ftrans-kernel-{uuid.uuid4().hex}")
        self._spec: Spec | None = None
        self._checked = per == "example"
        self._cache: tuple[Array, float, Array] | None = None
        self.evaluations = 0
        self.seconds = 0.0

    @property
    def n_chunks(self) -> int:
        """The number of row blocks (chunks of ``X`` along axis 0)."""
        return len(self.rows)

    # --- the cluster side ------------------------------------------------------------
    #: parameters (and tangents) up to this many bytes times the number of chunks travel
    #: inside the chunk tasks; larger ones are one key of the graph that the tasks share
    inline_bytes = 4 << 20
    #: chunk results up to this many bytes in all are added on the client (one hop less);
    #: larger ones by a reduction tree on the cluster
    gather_bytes = 16 << 20

    def _run(self, what: str, x: Array, v: Array | None = None) -> Any:
        """One graph: ``what`` on every chunk at the flat ``x``, then the chunks' results
        added in chunk order (on the client, or by a tree on the cluster when large).

        Every task depends only on its chunk's persisted blocks and on the kernel future
        (already on the workers after the first evaluation), so the tasks start at once:
        the parameters travel inside the tasks when small (no worker-to-worker fetch of a
        parameter key first), else as one key of the graph, sent once."""
        if self._spec is None:  # flat parameters straight from SciPy
            self._spec = Spec(np.asarray(x, dtype=np.float64))
        tok = uuid.uuid4().hex
        nb = len(self.rows)
        dsk: dict[Any, Any] = {}
        xs: Any = x
        vs: Any = v
        spec: Any = self._spec
        if nb * (x.nbytes + (0 if v is None else v.nbytes)) > self.inline_bytes:
            xs, vs, spec = f"ftrans-x-{tok}", f"ftrans-v-{tok}", f"ftrans-spec-{tok}"
            dsk[xs], dsk[spec] = x, self._spec
            if v is not None:
                dsk[vs] = v
            else:
                vs = None
        parts = []
        for b, rows in enumerate(self.rows):
            key = (f"ftrans-chunk-{tok}", b)
            dsk[key] = (run_chunk, self._kernel, what, spec, xs, vs,
                        self._X[b], self._y[b], self._w[b], b, rows)
            parts.append(key)
        t0 = time.perf_counter()
        n_out = 2 if what == "value_and_grad" else 1
        if nb * n_out * x.nbytes <= self.gather_bytes:
            out = sum_parts(*self.client.get(dsk, parts, sync=True))
        else:
            level = 0
            while len(parts) > 1:
                nxt: list[Any] = []
                for j, k in enumerate(range(0, len(parts), self.split_every)):
                    key = (f"ftrans-sum-{tok}-{level}", j)
                    dsk[key] = (sum_parts,) + tuple(parts[k:k + self.split_every])
                    nxt.append(key)
                parts, level = nxt, level + 1
            out = self.client.get(dsk, parts[0], sync=True)
        self.seconds += time.perf_counter() - t0
        self.evaluations += 1
        return out

    def _check_additive(self, x: Array) -> None:
        """A per-chunk loss must be a sum over rows: f(rows) == f(first half) + f(rest)."""
        m = min(16, self.rows[0][1])
        if m < 2:
            self._checked = True
            return
        got = self.client.gather([self.client.submit(head, bl[0], m, pure=False)
                                  for bl in (self._X, self._y, self._w) if bl[0] is not None])
        it = iter(got)
        X = next(it)
        y = next(it) if self._y[0] is not None else None
        w = next(it) if self._w[0] is not None else None
        h = m // 2
        if self._spec is None:  # flat parameters straight from SciPy (as in _run)
            self._spec = Spec(np.asarray(x, dtype=np.float64))
        spec = self._spec
        sub = lambda a, s: None if a is None else a[s]  # noqa: E731
        f = lambda s, r: float(self._kernel_obj.value(  # noqa: E731
            spec, x, sub(X, s), sub(y, s), sub(w, s), 0, r))
        whole, a, b = f(slice(0, m), (0, m)), f(slice(0, h), (0, h)), f(slice(h, m), (h, m))
        tol = 1e-9 * max(abs(a) + abs(b), 1e-300)
        if abs(whole - (a + b)) > tol:
            mean_like = abs(whole - (h * a + (m - h) * b) / m) <= tol
            raise ValueError(
                f"ftrans.dask.Objective: the per-chunk loss is not a sum over the rows: on "
                f"rows 0:{m} of chunk 0 it gives {whole!r}, on rows 0:{h} and {h}:{m} "
                f"{a!r} and {b!r}, which add up to {a + b!r}"
                + (" (it looks like a mean)" if mean_like else "") +
                ". Return the chunk's sum (the Objective divides by the number of rows for "
                "reduction='mean'), move terms that do not depend on the rows to penalty=, "
                "or use per='example' and return one loss per row")
        self._checked = True

    def _flat(self, what: str, x: ArrayLike, v: Array | None = None) -> Any:
        x = np.asarray(x, dtype=np.float64)
        if not self._checked:
            self._check_additive(x)
        return self._run(what, x, v)

    def _penalty_vg(self, x: Array) -> tuple[float, Any]:
        penalty, spec = self.penalty, self._spec
        if penalty is None:
            return 0.0, 0.0
        assert spec is not None  # set by the first evaluation
        v, g = _value_and_grad(lambda x: penalty(spec.unravel(x)))(x)
        return float(v), np.asarray(g)

    def _set_spec(self, params: PyTree) -> Array:
        """Remember the layout of ``params`` (for :meth:`unravel`) and flatten them."""
        spec = Spec(params)
        if self._spec is None or spec.treedef != self._spec.treedef or \
                spec.shapes != self._spec.shapes or spec.flat_leaf != self._spec.flat_leaf:
            self._spec = spec
        return self._spec.ravel(params)

    # --- flat vectors (SciPy's side) -------------------------------------------------
    def flat_value_and_grad(self, x: ArrayLike) -> tuple[float, Array]:
        """Value and gradient at the flat parameter vector ``x`` (SciPy's side).

        Parameters
        ----------
        x : array_like, shape (n,)
            The parameters flattened in the layout of those last passed to a method or
            to :func:`minimize`.

        Returns
        -------
        value : float
            The objective.
        grad : numpy.ndarray, shape (n,)
            Its gradient, float64 (a copy: the last result is cached).
        """
        x = np.array(x, dtype=np.float64)
        if self._cache is not None and np.array_equal(self._cache[0], x):
            return self._cache[1], self._cache[2].copy()
        s, g = self._flat("value_and_grad", x)
        pv, pg = self._penalty_vg(x)
        value = float(s) / self.normalizer + pv
        grad = np.asarray(g) / self.normalizer + pg
        self._cache = (x, value, grad)
        return value, grad.copy()

    def flat_hvp(self, x: ArrayLike, v: ArrayLike) -> Array:
        """The Hessian (or Gauss-Newton matrix) at the flat ``x`` times the flat ``v``.

        Parameters
        ----------
        x : array_like, shape (n,)
            The flat parameters.
        v : array_like, shape (n,)
            The flat vector.

        Returns
        -------
        numpy.ndarray, shape (n,)
            The product, float64 (the matrix chosen by ``hessian=``; the penalty's
            exact Hessian is added).
        """
        x = np.asarray(x, dtype=np.float64)
        v = np.asarray(v, dtype=np.float64)
        what = "hvp_exact" if self.hessian == "exact" else "hvp_gauss_newton"
        (hv,) = self._flat(what, x, v)
        hv = np.asarray(hv) / self.normalizer
        penalty, spec = self.penalty, self._spec
        if penalty is not None:
            assert spec is not None  # set by the evaluation above
            _, (ph,) = _hvp(lambda x: penalty(spec.unravel(x)), (x,), (v,))
            hv = hv + np.asarray(ph)
        return hv

    # --- the user's side: pytrees of parameters ---------------------------------------
    def _spec_set(self) -> Spec:
        if self._spec is None:
            raise ValueError("ftrans.dask.Objective: no parameters seen yet; evaluate it "
                             "(or call minimize) with the parameters' pytree first")
        return self._spec

    def value_and_grad(self, params: PyTree) -> tuple[float, PyTree]:
        """The objective and its gradient at ``params``.

        Parameters
        ----------
        params : PyTree
            The parameters (real arrays); their layout is remembered for
            :meth:`unravel`.

        Returns
        -------
        value : float
            The objective.
        grad : PyTree
            NumPy float64 arrays shaped like ``params``.
        """
        x = self._set_spec(params)
        v, g = self.flat_value_and_grad(x)
        return v, self._spec_set().unravel(g)

    def value(self, params: PyTree) -> float:
        """The objective at ``params``; shares one evaluation with :meth:`grad`.

        Parameters
        ----------
        params : PyTree
            The parameters.

        Returns
        -------
        float
            The objective.
        """
        return self.value_and_grad(params)[0]

    def grad(self, params: PyTree) -> PyTree:
        """The gradient at ``params``.

        Parameters
        ----------
        params : PyTree
            The parameters.

        Returns
        -------
        PyTree
            NumPy float64 arrays shaped like ``params``.
        """
        return self.value_and_grad(params)[1]

    def hvp(self, params: PyTree, tangent: PyTree) -> PyTree:
        """Hessian-vector product at ``params`` with ``tangent``.

        The exact Hessian or the Gauss-Newton matrix, as ``hessian=`` chose.

        Parameters
        ----------
        params : PyTree
            The parameters.
        tangent : PyTree
            The vector, of ``params``' structure and shapes.

        Returns
        -------
        PyTree
            The product, shaped like ``params``.
        """
        x = self._set_spec(params)
        spec = self._spec_set()
        return spec.unravel(self.flat_hvp(x, spec.ravel(tangent)))

    def unravel(self, x: ArrayLike) -> PyTree:
        """A flat vector (SciPy's ``x``) as the parameters' pytree.

        Parameters
        ----------
        x : array_like, shape (n,)
            The flat parameters.

        Returns
        -------
        PyTree
            Arrays in the layout of the parameters last passed to a method or to
            :func:`minimize`.

        Raises
        ------
        ValueError
            Before any parameters were seen.
        """
        return self._spec_set().unravel(np.asarray(x))
