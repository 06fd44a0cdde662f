"""Linear algebra in the generated numba code: ``solve``, ``cholesky``, ``triangular_solve``,
``det``, ``slogdet``, ``eigh``, ``svd``, ``qr``, ``pinv`` and ``lu`` lower to a loop over
the batch axes (the ``_batch_front`` primitives keep them in front) around one call per
matrix of numba's ``np.linalg`` (LAPACK) or of :mod:`ftrans.compiler._numba_linalg_support`,
inside the segment's function: no graph break.  Kind ``"objmode"`` calls a primitive's
impl from a ``numba.objmode`` block inside the segment's function (one result or
several): ``fft`` (numba has no ``np.fft``), ``eig`` (NumPy's eigenvector signs and
phases), and the primitives that have only a Python-level impl (SciPy's matrix
functions, ``polygamma`` ...).  The program stays one segment, measured no slower than
the graph break it replaces (29 us against 31 us for two 64-point transforms between
elementwise work), and a loop body calling one still compiles.

An equation graph-breaks to its impl (always correct) where numba's result would not be the
impl's: dtypes other than one float32/float64/complex64/complex128 for every operand and
result, a core axis of size 0 (NumPy's conventions for empty matrices), a vector right-hand
side, ``eigh(lower=False)`` (LAPACK's ``UPLO='U'`` path, whose eigenvector phases differ from
the conjugate-transposed ``'L'`` call), and ``qr(complete=True)`` with ``m > n`` (numba's
``qr`` is reduced only).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..core.ir import Eqn

__all__ = ["RULES"]

_DTYPES = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.complex64, np.complex128))

# op -> call of one matrix's result from the operands' sources ({0}, {1}; params by name)
# (numba's np.linalg through the cached entry points of _numba_linalg_support)
_CALLS = {
    "solve": "_solve({0}, {1})",
    "cholesky": "_cholesky({0})",
    "triangular_solve": "_trsolve({0}, {1}, {lower})",
    "det": "_det({0})",
    "slogdet": "_slogdet({0})",
    "eigh": "_eigh({0})",
    "svd": "_svd({0}, {full_matrices})",
    "qr": "_qr({0})",
    "pinv": "_pinv({0}, {rcond!r}, {hermitian})",
    "lu": "_lu({0})",
}


def _ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    op, p = low["op"], eqn.params
    a = eqn.inputs[0].aval
    dt = np.dtype(a.dtype)
    if dt not in _DTYPES or any(np.dtype(x.aval.dtype) != dt for x in eqn.inputs):
        return False
    real = np.dtype(np.finfo(dt).dtype)
    ints = (np.dtype(np.int32),) if op == "lu" else ()   # (its pivots and permutation)
    if any(np.dtype(o.aval.dtype) not in (dt, real, *ints) for o in eqn.outputs):
        return False
    if len(a.shape) < 2 or 0 in a.shape[-2:]:
        return False
    if len(eqn.inputs) > 1:
        b = eqn.inputs[1].aval
        if len(b.shape) != len(a.shape) or 0 in b.shape[-2:]:
            return False
    if op == "eigh" and not p["lower"]:
        return False
    if op == "qr" and p["complete"] and a.shape[-2] > a.shape[-1]:
        return False
    if op == "pinv" and not np.isfinite(p["rcond"]):
        return False   # (written into the code as a literal)
    return True


def _emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    a = eqn.inputs[0]
    nb = len(a.aval.shape) - 2
    nbs = cg.prod_src(a, range(nb))
    ins = []
    for x in eqn.inputs:
        t = cg.fresh("t")
        core = x.aval.shape[nb:]
        cg.emit(f"{t} = {cg.operand(x)}.reshape(({nbs}, {cg.shape_src(core)[1:]})")
        ins.append(t)
    outs = []
    for o in eqn.outputs:
        y = cg.fresh("y")
        core = o.aval.shape[nb:]
        cg.emit(f"{y} = _empty(({nbs}, {cg.shape_src(core)[1:]}, {cg.tyname(o.aval.dtype)})")
        outs.append(y)
    k = cg.fresh("k")
    res = cg.fresh("o")
    call = _CALLS[low["op"]].format(*[f"{t}[{k}]" for t in ins], **eqn.params)
    cg.emit(f"for {k} in range({nbs}):\n    {res} = {call}")
    for j, (o, y) in enumerate(zip(eqn.outputs, outs)):
        r = res if len(outs) == 1 else f"{res}[{j}]"
        # an array into a slice through _assign (its docstring says why)
        cg.emit(f"    _assign({y}[{k}], {r})" if len(o.aval.shape) > nb
                else f"    {y}[{k}] = {r}")
    for o, y in zip(eqn.outputs, outs):
        cg.define_reshaped(o, y)


def _plain(v: Any) -> bool:
    """Whether ``repr(v)`` is the literal of ``v`` (a param written into generated code)."""
    if isinstance(v, tuple):
        return all(_plain(x) for x in v)
    return v is None or type(v) in (bool, int, float, str)


def _obj_ok(eqn: Eqn, low: dict[str, Any], table: Any) -> bool:
    return (all(len(o.aval.shape) > 0 and 0 not in o.aval.shape for o in eqn.outputs)
            and all(np.dtype(x.aval.dtype) in _DTYPES and 0 not in x.aval.shape
                    and len(x.aval.shape) > 0 for x in eqn.inputs)
            and all(_plain(v) for v in eqn.params.values()))


def _obj_emit(cg: Any, i: int, eqn: Eqn, low: dict[str, Any]) -> None:
    """One ``objmode`` block calling the impl: the program stays one segment."""
    ys = [cg.fresh("y") for _ in eqn.outputs]
    # each result's numba type: a C-contiguous array of its dtype and rank
    tys = [f"{y}='{np.dtype(o.aval.dtype).name}[{', '.join([':'] * (o.aval.ndim - 1) + ['::1'])}]'"
           for y, o in zip(ys, eqn.outputs)]
    args = [repr(eqn.prim.name)] + [cg.operand(x) for x in eqn.inputs]
    args += [f"{k}={v!r}" for k, v in sorted(eqn.params.items())]
    cg.emit(f"with objmode({', '.join(tys)}):\n    {', '.join(ys)}, = _impl({', '.join(args)})")
    for o, y in zip(eqn.outputs, ys):
        cg.define(o, y)


RULES = {"linalg": (_ok, _emit), "objmode": (_obj_ok, _obj_emit)}
