"""Signatures and docstrings of generated compat functions: the ``out=`` keyword a
wrapper adds, and the in-place / method forms of a function (``Tensor.addmm_`` ...).

A wrapper made here shows the right signature to :func:`inspect.signature` (``out``
included) and a numpydoc docstring; nothing here changes what the wrapped function
does.
"""
from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import Any

__all__ = ["set_out_signature", "in_place_doc", "method_doc"]


def set_out_signature(f: Callable[..., Any], fn: Callable[..., Any],
                      annotation: str = "Tensor | None") -> Callable[..., Any]:
    """Give ``f`` (``fn`` wrapped with an ``out=`` keyword) ``fn``'s signature plus a
    keyword-only ``out`` (before ``**kwargs``), and ``fn``'s name and docstring.

    Parameters
    ----------
    f : callable
        The wrapper, which takes ``out=``.
    fn : callable
        The wrapped function (its signature without ``out``).
    annotation : str, optional
        The annotation of ``out`` (``"tuple[Tensor, ...] | None"`` for several results).

    Returns
    -------
    callable
        ``f`` itself, its ``__signature__``, ``__name__`` and ``__doc__`` set.
    """
    sig = inspect.signature(fn)
    if "out" not in sig.parameters:
        params = list(sig.parameters.values())
        p = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None,
                              annotation=annotation)
        if params and params[-1].kind is inspect.Parameter.VAR_KEYWORD:
            params.insert(len(params) - 1, p)
        else:
            params.append(p)
        sig = sig.replace(parameters=params)
    f.__signature__ = sig  # type: ignore[attr-defined]  # (functions accept attributes)
    f.__name__ = fn.__name__   # (not its module: tools/stubgen.py writes f's own signature)
    f.__doc__ = _with_out_doc(fn.__doc__, "tuple" in annotation)
    return f


_SECTION = re.compile(r"\n\n([ \t]*)(Returns|Yields|Raises|Warns|See Also|Notes|References|"
                      r"Examples)\n[ \t]*-{3,}\n")


def _with_out_doc(doc: str | None, several: bool) -> str | None:
    """``doc`` with an entry for ``out`` at the end of its Parameters section (unchanged
    when it documents ``out`` or has no Parameters section)."""
    if not doc or "Parameters\n" not in doc or re.search(r"^\s*out : ", doc, re.M):
        return doc
    start = doc.index("Parameters\n")
    m = _SECTION.search(doc, start)
    end = m.start() if m else len(doc.rstrip())
    indent = m.group(1) if m else " " * 4
    what = ("Tensors the results are written into (a tuple, one per result)" if several
            else "Tensor the result is written into")
    entry = (f"\n{indent}out : {'tuple of Tensor' if several else 'Tensor'}, optional\n"
             f"{indent}    {what}; returned.  No gradient is recorded.")
    return doc[:end] + entry + doc[end:]


def in_place_doc(name: str, of: str = "") -> str:
    """The numpydoc docstring of the in-place method ``Tensor.<name>_``.

    Parameters
    ----------
    name : str
        The out-of-place operation (``"addmm"``).
    of : str, optional
        Where the operation is documented (default ``torch.<name>``).

    Returns
    -------
    str
        The docstring (the method takes ``*args, **kwargs``).
    """
    of = of or f"torch.{name}"
    return f"""In-place ``{name}`` (``Tensor.{name}_``): the result written into ``self``.

    Parameters
    ----------
    *args, **kwargs : Any
        The arguments of ``{of}`` after its first (``self`` takes its place).

    Returns
    -------
    Tensor
        ``self``, modified in place (its version counter bumped).
    """


def method_doc(name: str, of: str = "") -> str:
    """The numpydoc docstring of the method ``Tensor.<name>`` that calls a function.

    Parameters
    ----------
    name : str
        The method's name.
    of : str, optional
        The function it calls (default ``torch.<name>``).

    Returns
    -------
    str
        The docstring (the method takes ``*args, **kwargs``).
    """
    of = of or f"torch.{name}"
    return f"""``{of}(self, ...)`` as a method (``Tensor.{name}``).

    Parameters
    ----------
    *args, **kwargs : Any
        The arguments of ``{of}`` after its first (``self`` takes its place).

    Returns
    -------
    Any
        What ``{of}`` returns.
    """
