"""IR -> executable.

``compile_ir(ir, backend)`` returns a callable ``run(*args) -> list`` computing the
program's outputs from concrete inputs (one per ``ir.in_vars`` entry).  The result is
cached on the program (``ir.cache``).

This first version is the reference executor: it evaluates the program equation by
equation with each primitive's ``impl`` (``eval_ir`` with no transform active).  The
numba (CPU) and CuPy (GPU) code generators replace it for the equations they can lower.
"""
from __future__ import annotations

from ..core.ir import IR, eval_ir
from ..core.trace import set_current_trace, EVAL

__all__ = ["compile_ir"]


def compile_ir(ir: IR, backend: str = "cpu"):
    """A callable computing ``ir`` on concrete arrays; see the module docstring.

    Parameters
    ----------
    ir : IR
    backend : {"cpu", "gpu"}

    Returns
    -------
    callable
        ``run(*args) -> list`` of outputs, one per ``ir.out_vars`` entry.
    """
    key = ("compiled", backend)
    run = ir.cache.get(key)
    if run is None:
        def run(*args):
            with set_current_trace(EVAL):
                return eval_ir(ir, *args)
        ir.cache[key] = run
    return run
