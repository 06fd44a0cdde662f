"""``torch.einsum`` for ``ftrans.compat``, composed of differentiable compat operations.

The spec is silent on einsum; the reference is PyTorch 2.13's observable behaviour
(``torch.einsum`` documentation and ``at::einsum``), checked against real torch in
tests/compat/test_compat_einsum.py.

Forms: ``einsum(equation, *operands)``, ``einsum(equation, [operands])`` and the sublist
form ``einsum(op1, [0, 1], op2, [1, 2], [0, 2])`` (ints in [0, 52): 0-25 are 'A'-'Z',
26-51 are 'a'-'z'; ``Ellipsis`` is '...').  Equation: letters, ',' between operands,
optional '->' and output, spaces anywhere between elements, one '...' per operand
(right-aligned ellipsis dimensions broadcast together, numpy-style; torch sums them when
an explicit output omits '...').  Without '->' the output is the ellipsis dimensions,
then the labels that occur exactly once, in ASCII order (upper case first).  A label
repeated within one operand takes that operand's diagonal ('ii->i', 'ii' = trace).
Dimensions of size 1 broadcast against the other operands' size of the same label.

Computation (as ``at::einsum`` with ``torch.backends.opt_einsum`` disabled: operands are
contracted pairwise from left to right -- torch reorders three or more operands with
opt_einsum when it is installed, which changes rounding and, for mixed dtypes, which
error is raised):

* one operand: diagonals, ``permute`` to output order, ``sum`` of the other labels;
* each pair ``(result so far, next operand)``: labels no later operand or the output
  needs are summed first where only one of the two has them; if the pair shares labels
  to contract, ONE ``matmul`` (batch labels first, contracted labels last/first,
  reshaped to 2-D or 3-D, reshaped back: no broadcast product is materialized), else a
  broadcasting ``mul``.

Because everything is built from compat operations (diagonal, permute, squeeze,
reshape, sum, mul, matmul), backward, ``create_graph`` double backward, forward-mode AD,
complex autograd and ``is_grads_batched`` come from those operations' rules.

dtypes follow torch: a ``mul`` pair promotes; a ``matmul`` pair of different dtypes
raises ``RuntimeError('expected scalar type Float but found Double')`` (first operand's
type expected), bool raises ``NotImplementedError`` (torch's bmm), except when either
operand is empty (then the result has the second operand's dtype, as torch's bmm);
``sum`` makes integer/bool results int64.  Errors for bad equations have torch's
exception types and messages (``ValueError`` from the Python-level argument handling,
``TypeError`` for non-tensor operands, ``RuntimeError`` for the equation).
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ._tensor import Tensor
from . import _ops as O   # partially initialised when _ops imports this module: use at call time

_ELL = 52                  # code of '...' in a parsed operand; ellipsis dim j gets 52 + j
_NO_OPERAND = ("einsum(): must specify the equation string and at least one operand, or at "
               "least one operand and its subscripts list")


def einsum(*args: Any) -> Tensor:
    """Sum of products of the operands' elements along labelled dimensions (``torch.einsum``).

    See the module docstring for the contraction order and dtype rules.

    Parameters
    ----------
    *args : Any
        ``(equation, *operands)``, ``(equation, [operands])`` or the sublist form
        ``(op1, sublist1, op2, sublist2, ..., [sublist_out])``; the operands are compat
        Tensors of any shapes matching the equation.

    Returns
    -------
    Tensor
        The shape is the output labels' sizes (size-1 dimensions broadcast).

    Raises
    ------
    ValueError
        Fewer than two arguments, a sublist int outside [0, 52).
    TypeError
        An equation that is not a str, an operand that is not a Tensor.
    RuntimeError
        The operand count, subscripts vs ndim, invalid characters, a bad '.', an output
        label missing from the inputs or repeated, label/ellipsis sizes that do not
        broadcast, repeated-label sizes that differ, different dtypes in a contraction
        (torch's messages).
    NotImplementedError
        A bool contraction.
    """
    if len(args) < 2:
        raise ValueError(_NO_OPERAND)
    if isinstance(args[0], Tensor):
        equation = ",".join("".join(_sublist_label(s) for s in sub) for sub in args[1::2])
        if len(args) % 2 == 1:
            equation += "->" + "".join(_sublist_label(s) for s in args[-1])
            operands = args[:-1:2]
        else:
            operands = args[::2]
    else:
        equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        return einsum(equation, *operands[0])
    if isinstance(equation, bytes):
        equation = equation.decode()
    if not isinstance(equation, str):
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(equation).__name__}")
    for i, op in enumerate(operands):
        if not isinstance(op, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 1, but got "
                            f"{_typename(op)}")
    shapes = [op._data.shape for op in operands]
    dims, out, sizes, out_codes = _parse(equation, shapes)
    ops = [_diagonals(op, ls) for op, ls in zip(operands, dims)]
    if len(ops) == 1:
        return _single(*ops[0], out, sizes)
    return _contract_all(ops, out, sizes, out_codes)


# ------------------------------------------------------------------------------ parsing
def _sublist_label(n: Any) -> str:
    """torch.functional.einsum's ``parse_subscript`` (same checks, same errors)."""
    if n is Ellipsis:
        return "..."
    if n >= 0 and n < 26:
        return chr(ord("A") + n)
    if n >= 26 and n < 52:
        return chr(ord("a") + n - 26)
    raise ValueError("einsum(): subscript in subscript list is not within the valid range "
                     "[0, 52)")


def _typename(v: object) -> str:
    t = type(v)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _code(b: int) -> int | None:
    """Label code of an ASCII letter byte (torch: 'A'-'Z' -> 0-25, 'a'-'z' -> 26-51), or
    None for anything else."""
    if 65 <= b <= 90:
        return b - 65
    if 97 <= b <= 122:
        return b - 97 + 26
    return None


def _letter(code: int) -> str:
    return chr(code + 65) if code < 26 else chr(code - 26 + 97)


def _invalid(index: int) -> RuntimeError:
    return RuntimeError(f"einsum(): invalid subscript given at index {index} in the equation "
                        "string, subscripts must be in [a-zA-Z]")


def _parse_lhs(lhs: bytes, num_ops: int) -> list[list[int]]:
    """Label codes (``_ELL`` for '...') of each operand, in the equation's order."""
    labels: list[list[int]] = [[] for _ in range(num_ops)]
    cur, ell, i = 0, False, 0
    while i < len(lhs):
        b = lhs[i]
        if b == 32:                                   # ' '
            pass
        elif b == 46:                                 # '.'
            if ell:
                raise RuntimeError(f"einsum(): found '.' for operand {cur} for which an "
                                   "ellipsis was already found")
            if not (i + 2 < len(lhs) and lhs[i + 1] == 46 and lhs[i + 2] == 46):
                raise RuntimeError(f"einsum(): found '.' for operand {cur} that is not part "
                                   "of any ellipsis")
            i += 2
            labels[cur].append(_ELL)
            ell = True
        elif b == 44:                                 # ','
            cur += 1
            if cur >= num_ops:
                raise RuntimeError("einsum(): fewer operands were provided than specified in "
                                   "the equation")
            ell = False
        else:
            c = _code(b)
            if c is None:
                raise _invalid(i)
            labels[cur].append(c)
        i += 1
    if cur != num_ops - 1:
        raise RuntimeError("einsum(): more operands were provided than specified in the "
                           "equation")
    return labels


def _parse_rhs(rhs: bytes, offset: int, count: list[int],
               ell_codes: list[int]) -> tuple[list[int], bool]:
    """Output codes of an explicit output; ``offset``: index of ``rhs`` in the equation."""
    out, ell, i = [], False, 0
    while i < len(rhs):
        b = rhs[i]
        if b == 32:
            pass
        elif b == 46:
            if ell:
                raise RuntimeError("einsum(): found '.' for output but an ellipsis (...) was "
                                   "already found")
            if not (i + 2 < len(rhs) and rhs[i + 1] == 46 and rhs[i + 2] == 46):
                raise RuntimeError("einsum(): found '.' for output that is not part of any "
                                   "ellipsis (...)")
            i += 2
            out.extend(ell_codes)
            ell = True
        else:
            c = _code(b)
            if c is None:
                raise _invalid(offset + i)
            if count[c] == 0 or c in out:
                what = (" appears more than once in the output" if c in out else
                        " does not appear in the equation for any input operand")
                raise RuntimeError(f"einsum(): output subscript {chr(b)}{what}")
            out.append(c)
        i += 1
    return out, ell


def _parse(equation: str, shapes: list[tuple[int, ...]]
           ) -> tuple[list[list[int]], list[int], dict[int, int], frozenset[int]]:
    """Check ``equation`` against the operand shapes, in torch's order of checks.

    Returns ``(dims, out, sizes, out_codes)``: the label code of every dimension of every
    operand (ellipsis dimension j of the broadcast ellipsis is ``_ELL + j``), the output
    codes, the broadcast size of every code (1 where every operand has size 1) and the
    set of codes that are output codes."""
    eq = equation.encode()
    arrow = eq.find(b"->")
    lhs = eq if arrow < 0 else eq[:arrow]
    labels = _parse_lhs(lhs, len(shapes))
    count = [0] * _ELL
    ell_ndim = 0
    for i, (ls, shape) in enumerate(zip(labels, shapes)):
        n = len(ls) - (_ELL in ls)
        for c in ls:
            if c != _ELL:
                count[c] += 1
        if _ELL in ls:
            ell_ndim = max(ell_ndim, len(shape) - n)
            if n > len(shape):
                raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) "
                                   f"is more than the number of dimensions ({len(shape)}) for "
                                   f"operand {i}")
        elif n != len(shape):
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n}) does "
                               f"not match the number of dimensions ({len(shape)}) for operand "
                               f"{i} and no ellipsis was given")
    ell_codes = [_ELL + j for j in range(ell_ndim)]
    if arrow < 0:
        out = ell_codes + [c for c in range(_ELL) if count[c] == 1]
    else:
        out, _ = _parse_rhs(eq[arrow + 2:], arrow + 2, count, ell_codes)
    sizes: dict[int, int] = {}
    dims = []
    for i, (ls, shape) in enumerate(zip(labels, shapes)):
        d, k = [], 0
        for c in ls:
            if c == _ELL:
                n = len(shape) - (len(ls) - 1)
                for j in range(ell_ndim - n, ell_ndim):
                    s = shape[k]
                    seen = sizes.get(_ELL + j, 1)
                    if s != 1:
                        if seen != 1 and seen != s:
                            raise RuntimeError(
                                f"einsum(): dimension {k} covered by ellipsis in operand {i}"
                                f"has size {s} which does not broadcast with previously seen "
                                f"ellipsis with size {seen} for the respective dimension")
                        sizes[_ELL + j] = s
                    d.append(_ELL + j)
                    k += 1
            elif c in d:
                s, prev = shape[k], shape[d.index(c)]
                if s != prev:
                    raise RuntimeError(f"einsum(): subscript {_letter(c)} is repeated for "
                                       f"operand {i} but the sizes don't match, {s} != {prev}")
                d.append(c)
                k += 1
            else:
                s = shape[k]
                seen = sizes.get(c, 1)
                if s != 1:
                    if seen != 1 and seen != s:
                        raise RuntimeError(f"einsum(): subscript {_letter(c)} has size {s} for "
                                           f"operand {i} which does not broadcast with "
                                           f"previously seen size {seen}")
                    sizes[c] = s
                d.append(c)
                k += 1
        dims.append(d)
    return dims, out, sizes, frozenset(out)


# ------------------------------------------------------------------------------ computing
def _diagonals(x: Tensor, labels: list[int]) -> tuple[Tensor, list[int]]:
    """Replace each repeated label of one operand by its diagonal (appended last)."""
    labels = list(labels)
    while len(set(labels)) != len(labels):
        c = next(c for k, c in enumerate(labels) if c in labels[k + 1:])
        p = labels.index(c)
        q = labels.index(c, p + 1)
        x = O.diagonal(x, 0, p, q)
        labels = [l for k, l in enumerate(labels) if k not in (p, q)] + [c]
    return x, labels


def _positions(labels: list[int], order: list[int]) -> list[int]:
    return [labels.index(c) for c in order]


def _is_identity(perm: list[int]) -> bool:
    return all(k == p for k, p in enumerate(perm))


def _single(x: Tensor, labels: list[int], out: list[int], sizes: dict[int, int]) -> Tensor:
    """One operand: permute to (output, contracted) order, then sum the contracted."""
    rest = sorted(c for c in labels if c not in out)
    x = O.permute(x, _positions(labels, out + rest))
    if rest:
        x = O.sum(x, tuple(range(len(out), len(out) + len(rest))))
    return x


def _squeeze_ones(x: Tensor, labels: list[int]) -> tuple[Tensor, list[int]]:
    """Drop size-1 dimensions: they broadcast (torch counts only sizes != 1)."""
    shape = x._data.shape
    ones = tuple(k for k, s in enumerate(shape) if s == 1)
    if not ones:
        return x, labels
    return O.squeeze(x, ones), [c for k, c in enumerate(labels) if shape[k] != 1]


def _sum_out(x: Tensor, labels: list[int], codes: list[int]) -> tuple[Tensor, list[int]]:
    if not codes:
        return x, labels
    x = O.sum(x, tuple(labels.index(c) for c in codes))
    return x, [c for c in labels if c not in codes]


def _contract_all(ops: list[tuple[Tensor, list[int]]], out: list[int], sizes: dict[int, int],
                  out_codes: frozenset[int]) -> Tensor:
    """Two or more operands, contracted left to right (at::einsum's pair loop)."""
    ops = [_squeeze_ones(x, ls) for x, ls in ops]
    count: dict[int, int] = {}
    for _, ls in ops:
        for c in ls:
            if c not in out_codes:
                count[c] = count.get(c, 0) + 1
    a, la = ops[0]
    for b, lb in ops[1:]:
        sum_a: list[int] = []
        sum_b: list[int] = []
        contract: list[int] = []
        for c in sorted(set(la) | set(lb)):
            if c in out_codes:
                continue
            if c in la and c in lb:
                count[c] -= 1
                if count[c] == 1:
                    contract.append(c)
                    count[c] = 0
            elif count[c] == 1:
                (sum_a if c in la else sum_b).append(c)
                count[c] = 0
        a, la = _sum_out(a, la, sum_a)
        b, lb = _sum_out(b, lb, sum_b)
        if contract:
            a, la = _matmul_pair(a, la, b, lb, contract)
        else:
            a, la = _mul_pair(a, la, b, lb)
    present = [c for c in out if c in la]
    perm = _positions(la, present)
    if not _is_identity(perm):
        a = O.permute(a, perm)
    shape = tuple(sizes.get(c, 1) for c in out)
    if len(present) != len(out):
        a = O.reshape(a, shape)
    return a


def _mul_pair(a: Tensor, la: list[int], b: Tensor, lb: list[int]) -> tuple[Tensor, list[int]]:
    """Broadcasting product of two operands without labels to contract."""
    extra = [c for c in lb if c not in la]
    labels = la + extra
    if extra:
        a = O.reshape(a, a._data.shape + (1,) * len(extra))
    order = [c for c in labels if c in lb]
    perm = _positions(lb, order)
    if not _is_identity(perm):
        b = O.permute(b, perm)
    bshape = b._data.shape
    full = tuple(bshape[order.index(c)] if c in lb else 1 for c in labels)
    if full != bshape:
        b = O.reshape(b, full)
    return O.mul(a, b), labels


def _prod(shape: Iterable[int]) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _matmul_pair(a: Tensor, la: list[int], b: Tensor, lb: list[int],
                 contract: list[int]) -> tuple[Tensor, list[int]]:
    """One (batched) matmul: ``a`` as (batch, a-only, contracted), ``b`` as (batch,
    contracted, b-only), reshaped to 3-D (2-D without batch labels) and back."""
    ad, bd = a._data, b._data
    if ad.size == 0 or bd.size == 0:
        if ad.dtype != bd.dtype:             # torch's bmm: empty operands skip its checks,
            a = O._convert(a, bd.dtype)      # the result has the second one's dtype
    elif ad.dtype != bd.dtype:
        raise RuntimeError(f"expected scalar type {O._tname(ad.dtype)} but found "
                           f"{O._tname(bd.dtype)}")
    elif ad.dtype == bool:
        raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
    contract = [c for c in la if c in contract]
    batch = [c for c in la if c in lb and c not in contract]
    lo = [c for c in la if c not in lb]
    ro = [c for c in lb if c not in la]
    sa = dict(zip(la, ad.shape))
    sb = dict(zip(lb, bd.shape))
    nb, nlo, nc, nro = (_prod(sa[c] for c in batch), _prod(sa[c] for c in lo),
                        _prod(sa[c] for c in contract), _prod(sb[c] for c in ro))
    lead = (nb,) if batch else ()
    a = _arrange(a, la, batch + lo + contract, lead + (nlo, nc))
    b = _arrange(b, lb, batch + contract + ro, lead + (nc, nro))
    r = O.matmul(a, b)
    labels = batch + lo + ro
    shape = tuple(sa[c] for c in batch + lo) + tuple(sb[c] for c in ro)
    if r._data.shape != shape:
        r = O.reshape(r, shape)
    return r, labels


def _arrange(x: Tensor, labels: list[int], order: list[int], shape: tuple[int, ...]) -> Tensor:
    perm = _positions(labels, order)
    if not _is_identity(perm):
        x = O.permute(x, perm)
    if x._data.shape != shape:
        x = O.reshape(x, shape)
    return x
