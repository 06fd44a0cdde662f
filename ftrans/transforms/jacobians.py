"""``jacfwd``, ``jacrev`` (alias ``jacobian``), ``hessian`` and ``hvp``.

The Jacobians are vectorized with :func:`~ftrans.transforms.vmap.vmap`: ``jacfwd``
pushes the whole standard basis of the inputs through one batched ``jvp``,
``jacrev`` pulls the basis of the outputs back through one batched VJP -- no
Python loop over rows or columns.  Structures follow JAX: for an output pytree
``O`` and a differentiated argument pytree ``I``, the result has ``O``'s structure
whose leaves are ``I``-structured blocks of shape ``out_leaf.shape +
in_leaf.shape`` (a tuple over arguments when ``argnums`` is a tuple).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..primitives import add, mul, conj, gather, reshape, convert_element_type
from ._util import normalize_argnums, tree_flatten, tree_unflatten, check_input, as_output
from .jvp import jvp
from .vjp import vjp, grad
from .vmap import vmap
from ..typing import Array, PyTree

__all__ = ["jacfwd", "jacrev", "jacobian", "hessian", "hvp"]


def _split_args(fun: Callable[..., Any], args: Sequence[Any], kwargs: dict[str, Any],
                argnums: int | Sequence[int], name: str
                ) -> tuple[Callable[..., Any], tuple[Any, ...], bool]:
    nums, single = normalize_argnums(argnums, len(args), name)

    def f_of_diff(*diff: Any) -> Any:
        full = list(args)
        for i, d in zip(nums, diff):
            full[i] = d
        return fun(*full, **kwargs)
    return f_of_diff, tuple(args[i] for i in nums), single


def _check_dtypes(leaves: Sequence[Any], holomorphic: bool, name: str, what: str) -> None:
    """Inputs: floating or complex (all complex with ``holomorphic=True``).  Outputs
    (``what="outputs"``): also real without ``holomorphic=True``."""
    for l in leaves:
        kind = l.dtype.kind
        if kind not in "fc":
            raise TypeError(f"{name} requires floating-point {what}, got dtype {l.dtype}")
        if holomorphic and kind != "c":
            raise TypeError(f"{name} with holomorphic=True requires complex {what}, got "
                            f"dtype {l.dtype}")
        if not holomorphic and kind == "c" and what == "outputs":
            _complex_output_error(name, l.dtype)


def _complex_output_error(name: str, dtype: Any) -> None:
    raise TypeError(
        f"{name} requires real-valued outputs without holomorphic=True, got dtype {dtype}: "
        "the Jacobian of a complex output is defined here for holomorphic functions only. "
        "Pass holomorphic=True for a holomorphic function; otherwise differentiate real "
        "quantities (fnp.real(f), fnp.imag(f) or abs(f)**2), or use ftrans.vjp / ftrans.jvp "
        "directly")


def _basis(leaves: Sequence[Any]) -> tuple[list[Array], list[int], int]:
    """The standard basis of the flattened leaves: per leaf, an array of shape
    ``(N,) + leaf.shape`` (N = total size) in the leaf's dtype."""
    sizes = [int(np.prod(l.shape, dtype=np.int64)) for l in leaves]
    n = sum(sizes)
    if len(leaves) == 1:  # one leaf: the identity in its dtype, reshaped (no copies)
        return [np.eye(n, dtype=leaves[0].dtype).reshape((n,) + tuple(leaves[0].shape))], sizes, n
    eye = np.eye(n)
    out: list[Array] = []
    start = 0
    for l, s in zip(leaves, sizes):
        out.append(np.ascontiguousarray(eye[:, start:start + s]).reshape((n,) + tuple(l.shape))
                   .astype(l.dtype))
        start += s
    return out, sizes, n


def _blocks(batched: Any, axis_first: bool, sizes: Sequence[int],
            lead_shapes: Sequence[Sequence[int]], tail_shapes: Sequence[Sequence[int]]
            ) -> list[Any]:
    """Split the basis axis of ``batched`` (at 0 if ``axis_first`` else last) into one
    block per basis leaf and reshape each to ``lead + tail`` shapes."""
    if len(sizes) == 1:  # one basis leaf: the whole axis, no slicing
        return [as_output(reshape(batched, tuple(lead_shapes[0]) + tuple(tail_shapes[0])))]
    out: list[Any] = []
    start = 0
    for s, lead, tail in zip(sizes, lead_shapes, tail_shapes):
        if axis_first:
            part = gather(batched, (slice(start, start + s),))
        else:
            part = gather(batched, (Ellipsis, slice(start, start + s)))
        out.append(as_output(reshape(part, tuple(lead) + tuple(tail))))
        start += s
    return out


_JAC_PARAMS = """fun : callable
        Function of pytree arguments returning a pytree of arrays (or ``(output,
        aux)`` with ``has_aux=True``).  Keyword arguments are passed through, not
        differentiated.
    argnums : int or sequence of int, default 0
        Positional arguments to differentiate (negative counts from the end); a
        sequence gives a tuple of Jacobians, one per argument.
    has_aux : bool, default False
        ``fun`` returns ``(output, aux)``; ``aux`` is returned, not differentiated.
    holomorphic : bool, default False
        ``fun`` is complex-differentiable in its complex inputs."""


def jacfwd(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False) -> Callable[..., Any]:
    """Jacobian of ``fun`` by forward mode: one batched JVP over the input basis.

    Efficient for functions with fewer inputs than outputs ("tall" Jacobians).

    Parameters
    ----------
    {params}

    Returns
    -------
    callable
        ``(*args, **kwargs) -> jac`` (or ``(jac, aux)``).  For an output leaf ``o``
        and an input leaf ``x`` the block has shape ``o.shape + x.shape``; the result
        has the output's structure with the argument's structure inside.

    Raises
    ------
    TypeError
        Complex inputs with complex outputs without ``holomorphic=True``, real inputs
        with ``holomorphic=True``, integer inputs.
    ValueError
        If ``argnums`` is empty, out of range or repeats an argument.

    Notes
    -----
    Follows ``jax.jacfwd``
    (https://docs.jax.dev/en/latest/_autosummary/jax.jacfwd.html), result structure
    included.  Complex inputs without ``holomorphic=True`` (real outputs): the rows are
    what :func:`~ftrans.grad` returns for each output, ``d out/dx + i d out/dy`` for
    ``z = x + iy`` (PyTorch's convention, as ``jacrev``); each complex input is pushed
    along its real and its imaginary directions.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.jacfwd(lambda x: x ** 2)(np.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    """
    def jac_f(*args: Any, **kwargs: Any) -> Any:
        f, diff_args, single = _split_args(fun, args, kwargs, argnums, "jacfwd")
        in_leaves, in_tree = tree_flatten(diff_args)
        in_leaves = [check_input(l, "jacfwd") for l in in_leaves]
        _check_dtypes(in_leaves, holomorphic, "jacfwd", "inputs")
        primals = tree_unflatten(in_tree, in_leaves)
        basis, sizes, n = _basis(in_leaves)
        # complex inputs of a real function: push the imaginary directions too (the
        # second half of the basis; zeros for real inputs)
        split = not holomorphic and any(l.dtype.kind == "c" for l in in_leaves)
        if split:
            basis = [np.concatenate([b, b * 1j if l.dtype.kind == "c" else np.zeros_like(b)])
                     for b, l in zip(basis, in_leaves)]

        def push(*tangent_leaves: Any) -> tuple[Any, Any, Any]:
            res = jvp(f, primals, tree_unflatten(in_tree, list(tangent_leaves)), has_aux=has_aux)
            return (res[0], res[1], res[2] if has_aux else None)

        out, t_out, aux = vmap(push, in_axes=0, out_axes=(None, -1, None),
                               axis_size=2 * n if split else n)(*basis)
        out_leaves, out_tree = tree_flatten(out)
        t_leaves = tree_flatten(t_out)[0]
        blocks: list[Any] = []
        for o, t in zip(out_leaves, t_leaves):
            lead = [o.shape] * len(in_leaves)
            tail = [l.shape for l in in_leaves]
            if not split:
                per_in = _blocks(t, False, sizes, lead, tail)
            else:
                if o.dtype.kind == "c":
                    _complex_output_error("jacfwd of a function of complex inputs", o.dtype)
                re = _blocks(gather(t, (Ellipsis, slice(0, n))), False, sizes, lead, tail)
                im = _blocks(gather(t, (Ellipsis, slice(n, 2 * n))), False, sizes, lead, tail)
                per_in = [as_output(convert_element_type(add(r, mul(i, 1j)), l.dtype))
                          if l.dtype.kind == "c" else r for r, i, l in zip(re, im, in_leaves)]
            blocks.append(_arg_structure(in_tree, per_in, single))
        jac = tree_unflatten(out_tree, blocks)
        return (jac, aux) if has_aux else jac
    return jac_f


jacfwd.__doc__ = (jacfwd.__doc__ or "").replace("{params}", _JAC_PARAMS)


def _arg_structure(in_tree: Any, leaves: list[Any], single: bool) -> Any:
    t = tree_unflatten(in_tree, leaves)
    return t[0] if single else t


def jacrev(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
           holomorphic: bool = False, chunk_size: int | None = None) -> Callable[..., Any]:
    """Jacobian of ``fun`` by reverse mode: one batched VJP over the output basis.

    Efficient for functions with fewer outputs than inputs ("wide" Jacobians).
    ``ftrans.jacobian`` is the same function.

    Parameters
    ----------
    {params}
    chunk_size : int, optional
        Pull back at most this many basis vectors at a time (bounds memory).

    Returns
    -------
    callable
        ``(*args, **kwargs) -> jac`` (or ``(jac, aux)``).  For an output leaf ``o``
        and an input leaf ``x`` the block has shape ``o.shape + x.shape``; the result
        has the output's structure with the argument's structure inside.

    Raises
    ------
    TypeError
        Complex outputs without ``holomorphic=True``, real inputs with it, integer
        inputs.
    ValueError
        If ``argnums`` is empty, out of range or repeats an argument.

    Notes
    -----
    Follows ``jax.jacrev``
    (https://docs.jax.dev/en/latest/_autosummary/jax.jacrev.html); ``chunk_size`` is
    ``torch.func.jacrev``'s.  Complex inputs without ``holomorphic=True`` (real
    outputs): the rows are what :func:`~ftrans.grad` returns for each output,
    ``d out/dx + i d out/dy`` for ``z = x + iy`` (PyTorch's convention;
    ``torch.autograd.functional.jacobian`` gives the same).

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.jacrev(lambda x: fnp.stack([x[0] * x[1], x[1]]))(np.array([2.0, 3.0]))
    array([[3., 2.],
           [0., 1.]])
    """
    def jac_f(*args: Any, **kwargs: Any) -> Any:
        f, diff_args, single = _split_args(fun, args, kwargs, argnums, "jacrev")
        in_leaves, in_tree = tree_flatten(diff_args)
        in_leaves = [check_input(l, "jacrev") for l in in_leaves]
        _check_dtypes(in_leaves, holomorphic, "jacrev", "inputs")
        res = vjp(f, *tree_unflatten(in_tree, in_leaves), has_aux=has_aux)
        out, vjp_fn = res[0], res[1]
        out_leaves, out_tree = tree_flatten(out)
        _check_dtypes(out_leaves, holomorphic, "jacrev", "outputs")
        basis, sizes, m = _basis(out_leaves)

        def pull(*ct_leaves: Any) -> list[Any]:
            return tree_flatten(vjp_fn(tree_unflatten(out_tree, list(ct_leaves))))[0]

        if m == 1:
            # one output element (a scalar function): the basis has one vector, so call the
            # VJP once instead of vmapping over a size-1 axis -- the same result without a
            # batch trace around every op of the backward pass (the inner level of
            # hessian = jacfwd(jacrev(f))).
            rows = pull(*[b.reshape(b.shape[1:]) for b in basis])
            if holomorphic:
                rows = [conj(r) for r in rows]
            if len(out_leaves) == 1:  # rows[j] is the block itself, up to its shape
                per_in_blocks = [[as_output(reshape(r, tuple(out_leaves[0].shape)
                                                    + tuple(l.shape)))]
                                 for r, l in zip(rows, in_leaves)]
            else:
                rows = [reshape(r, (1,) + tuple(r.shape)) for r in rows]
        else:
            rows = vmap(pull, in_axes=0, axis_size=m, chunk_size=chunk_size)(*basis)
            if holomorphic:
                rows = [conj(r) for r in rows]
        if m != 1 or len(out_leaves) != 1:
            # rows[j]: (m,) + in_leaves[j].shape; split m into the output leaves
            per_in_blocks = [_blocks(r, True, sizes, [o.shape for o in out_leaves],
                                     [l.shape] * len(out_leaves))
                             for r, l in zip(rows, in_leaves)]
        blocks = [_arg_structure(in_tree, [per_in_blocks[j][k] for j in range(len(in_leaves))],
                                 single) for k in range(len(out_leaves))]
        jac = tree_unflatten(out_tree, blocks)
        return (jac, res[2]) if has_aux else jac
    return jac_f


jacrev.__doc__ = (jacrev.__doc__ or "").replace("{params}", _JAC_PARAMS)
jacobian = jacrev


def hessian(fun: Callable[..., Any], argnums: int | Sequence[int] = 0, has_aux: bool = False,
            holomorphic: bool = False) -> Callable[..., Any]:
    """Hessian of a scalar function, ``jacfwd(jacrev(fun))``: shape ``in.shape * 2``.

    Parameters
    ----------
    {params}

    Returns
    -------
    callable
        ``(*args, **kwargs) -> hess`` (or ``(hess, aux)``): for input leaves ``x`` and
        ``y`` the block ``d2 f / dx dy`` has shape ``x.shape + y.shape``.

    Raises
    ------
    TypeError
        As :func:`jacfwd` and :func:`jacrev` (complex outputs without
        ``holomorphic=True``, integer inputs ...).

    Notes
    -----
    Forward-over-reverse, as ``jax.hessian``
    (https://docs.jax.dev/en/latest/_autosummary/jax.hessian.html).

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> ftrans.hessian(lambda x: fnp.sum(x ** 3))(np.array([1.0, 2.0]))
    array([[ 6.,  0.],
           [ 0., 12.]])
    """
    return jacfwd(jacrev(fun, argnums, has_aux, holomorphic), argnums, has_aux, holomorphic)


hessian.__doc__ = (hessian.__doc__ or "").replace("{params}", _JAC_PARAMS)


def hvp(fun: Callable[..., Any], primals: Sequence[PyTree], tangents: Sequence[PyTree]
        ) -> tuple[tuple[PyTree, ...], tuple[PyTree, ...]]:
    """Hessian-vector product by forward-over-reverse, without forming the Hessian.

    Parameters
    ----------
    fun : callable
        Real scalar function of ``len(primals)`` pytree arguments.
    primals : tuple or list
        The point, one pytree per argument.
    tangents : tuple or list
        The vector, matching ``primals`` in structure, shapes and dtypes.

    Returns
    -------
    grad : tuple
        The gradient at ``primals``, one pytree per argument.
    hvp : tuple
        ``H @ tangents``, one pytree per argument.

    Raises
    ------
    TypeError
        If ``primals``/``tangents`` are not tuples or lists; otherwise as
        :func:`~ftrans.jvp` and :func:`~ftrans.grad`.
    ValueError
        As :func:`~ftrans.jvp` (mismatching structures or shapes).

    Notes
    -----
    ``jvp(grad(f), primals, tangents)``, the forward-over-reverse product of JAX's
    autodiff cookbook ("Hessian-vector products"); one gradient's cost, a small
    multiple.

    Examples
    --------
    >>> import numpy as np, ftrans, ftrans.numpy as fnp
    >>> f = lambda x: fnp.sum(x ** 3)
    >>> g, (hv,) = ftrans.hvp(f, (np.array([1.0, 2.0]),), (np.ones(2),))
    >>> g, hv
    ((array([ 3., 12.]),), array([ 6., 12.]))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise TypeError("hvp expects primals and tangents as tuples of arguments, got "
                        f"{type(primals).__name__} and {type(tangents).__name__}")
    g = grad(fun, argnums=tuple(range(len(primals))))
    out = jvp(g, tuple(primals), tuple(tangents))
    return out[0], out[1]
