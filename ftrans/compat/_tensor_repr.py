"""PyTorch's ``repr`` of a tensor (``tensor([1., 2.], requires_grad=True)``)."""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from . import _dtype as D


def _float_formatter(a: Any) -> dict[str, Callable[[Any], str]] | None:
    """PyTorch's float format: ``1.`` for integral values, 4 decimals otherwise, scientific
    notation for wide ranges; every element padded to the same width."""
    if a.dtype.kind != "f":
        return None
    fin = a[np.isfinite(a)].astype(np.float64)
    v = np.abs(fin)
    nz = v[v != 0]
    fmt: Callable[[Any], str]
    if v.size == 0 or np.all(v == np.round(v)):
        if nz.size and nz.max() >= 1e8:
            fmt = "{:.4e}".format
        else:
            def fmt(x: Any) -> str:
                return f"{x:.0f}." if np.isfinite(x) else f"{x}"
    elif nz.size and (nz.max() / nz.min() > 1000.0 or nz.max() >= 1e8 or nz.min() < 1e-4):
        fmt = "{:.4e}".format
    else:
        fmt = "{:.4f}".format
    width = 0
    if fin.size:
        width = max(len(fmt(fin.max())), len(fmt(fin.min())))
    if fin.size != a.size:
        width = max(width, 3 if not np.any(np.isneginf(a)) else 4)

    def pad(x: Any) -> str:
        return fmt(x).rjust(width)
    return {"float_kind": pad}


def format_tensor(a: Any, grad_fn_name: str | None, requires_grad: bool,
                  tangent: str | None) -> str:
    """PyTorch's ``repr`` of a tensor of data ``a`` (its ``grad_fn``'s name or None,
    ``requires_grad``, its forward-AD tangent's repr or None)."""
    kw = []
    if a.size == 0:
        body = "[]"
        if a.ndim != 1:
            kw.append(f"size=({', '.join(map(str, a.shape))}{',' if a.ndim == 1 else ''})")
    else:
        with np.printoptions(threshold=1000, edgeitems=3, linewidth=80):
            body = np.array2string(a, separator=", ", prefix="tensor(",
                                   formatter=_float_formatter(a))  # type: ignore[arg-type]
    dt = a.dtype
    default = D.get_default_dtype().np
    if dt.kind == "f" and dt != default:
        kw.append(f"dtype={D.from_np(dt)!r}")
    elif dt.kind == "c" and dt != D.default_complex():
        kw.append(f"dtype={D.from_np(dt)!r}")
    elif dt.kind in "iu" and dt != np.int64:
        kw.append(f"dtype={D.from_np(dt)!r}")
    if grad_fn_name is not None:
        nm = grad_fn_name
        if nm.startswith("torch::autograd::"):
            nm = nm[17:]
        kw.append(f"grad_fn=<{nm}>")
    elif requires_grad:
        kw.append("requires_grad=True")
    if tangent is not None:
        kw.append("tangent=" + tangent)
    return "tensor(" + body + "".join(", " + k for k in kw) + ")"


def _ctype(npdt: Any) -> str:
    """PyTorch's C type name of a NumPy dtype (``float``, ``double`` ...)."""
    return {"float32": "float", "float64": "double", "float16": "half", "int64": "long",
            "int32": "int", "complex64": "complex<float>",
            "complex128": "complex<double>"}.get(str(npdt), str(npdt))
