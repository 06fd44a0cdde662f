"""Anomaly detection for the compat autograd engine (PyTorch's ``torch.autograd.detect_anomaly``).

Source: the "Anomaly detection" section of the ``torch.autograd`` reference
(``spec/torch-autograd-reference.txt``); where it is silent, PyTorch 2.13's
observable behaviour:

* The mode is **process-wide** (PyTorch keeps it in one global flag, not per thread) and off
  by default.  :func:`set_anomaly_enabled` (``torch.set_anomaly_enabled``) switches it;
  :class:`detect_anomaly` and :class:`set_detect_anomaly` are context managers around it.
* While it is on, every graph node created records the Python stack of the forward call
  in ``grad_fn.metadata["traceback_"]`` (a list of strings, as ``traceback.format_list``
  makes them; the innermost frames that lie inside the ``ftrans`` package are left out, so
  the last entry is the user's line).  A node created while the engine runs another node
  (``create_graph=True``) also records that node as ``metadata["parent_"]``.
* While it is on, the engine runs every node through its checked path: if a node (its
  hooks included) raises, a ``UserWarning`` "Error detected in XBackward0. Traceback of
  forward call that caused the error: ..." is issued -- followed by one "Previous calculation
  was induced by ..." warning per ``parent_`` -- and the exception is re-raised unchanged;
  with ``check_nan`` a node output containing NaN raises ``RuntimeError("Function
  'XBackward0' returned nan values in its {i}th output.")``, ``i`` indexing the node's
  ``next_functions``.

The graph and the engine do not import this module: they publish events
(:mod:`ftrans.compat.autograd._events`), and switching the mode on subscribes
:func:`record` to ``node_created`` and :func:`run_checked` to ``node_run``.  When the mode
is off, graph recording pays one truth test per node (an empty subscriber tuple) and the
engine's inline path is untouched.
"""
from __future__ import annotations

import os
import sys
import threading
import traceback
import warnings
from collections.abc import Callable, Sequence
from types import FrameType
from typing import Any

import numpy as np

from . import _events
from ._node import Node

__all__ = ["detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled",
           "is_anomaly_check_nan_enabled", "set_anomaly_enabled"]

# the state (compat._ops's node creation sites still read ``_enabled`` directly)
_enabled = False
_check_nan = True
_switch_lock = threading.Lock()

# the ftrans package directory: frames inside it are internal
_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))) + os.sep


class _Running(threading.local):
    node: Node | None = None   # the node the engine is running in this thread (anomaly mode only)


_running = _Running()


def is_anomaly_enabled() -> bool:
    """Whether anomaly detection is on (``torch.is_anomaly_enabled``).

    Returns
    -------
    bool
        The process-wide flag (False by default).
    """
    return _enabled


def is_anomaly_check_nan_enabled() -> bool:
    """Whether anomaly detection checks backward outputs for NaN.

    ``torch.is_anomaly_check_nan_enabled``.

    Returns
    -------
    bool
        True unless switched off.
    """
    return _check_nan


def set_anomaly_enabled(enabled: bool, check_nan: bool = True) -> None:
    """Switch anomaly detection on or off for the whole process (``torch.set_anomaly_enabled``).

    Parameters
    ----------
    enabled : bool
        True to switch the mode on, False to switch it off.
    check_nan : bool, optional
        Raise when a backward node returns NaN (default True, also when switching off --
        as in PyTorch).
    """
    global _enabled, _check_nan
    on = bool(enabled)
    with _switch_lock:
        if on and not _enabled:  # the graph and the engine publish; the mode listens
            _events.subscribe("node_created", record)
            _events.subscribe("node_run", run_checked)
        elif _enabled and not on:
            _events.unsubscribe("node_created", record)
            _events.unsubscribe("node_run", run_checked)
        _enabled = on
        _check_nan = bool(check_nan)


class detect_anomaly:
    """Context manager that enables anomaly detection (``torch.autograd.detect_anomaly``).

    Creating it warns (``UserWarning``: the mode slows programs down); entering it turns the
    mode on with ``check_nan``, leaving it restores the previous state.  As in PyTorch 2.13
    it is not a decorator.

    Parameters
    ----------
    check_nan : bool, optional
        Raise when a backward node returns NaN (default True).
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.check_nan = check_nan
        self.prev_check_nan = _check_nan
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", UserWarning, stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Set anomaly detection on or off (``torch.autograd.set_detect_anomaly(mode, check_nan)``).

    It takes effect when called, so it works as a function; used as a context manager it
    restores the previous state on exit.

    Parameters
    ----------
    mode : bool
        True to switch anomaly detection on, False to switch it off.
    check_nan : bool, optional
        Raise when a backward node returns NaN (default True).
    """

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = _enabled
        self.prev_check_nan = _check_nan
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args: Any) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


# ------------------------------------------------------------------- recording (forward)
def _user_frames(f: FrameType | None) -> list[str]:
    """``traceback.format_list`` of the stack ending at frame ``f``, without its innermost
    frames inside the ftrans package."""
    while f is not None and f.f_code.co_filename.startswith(_ROOT):
        f = f.f_back
    return traceback.format_list(traceback.extract_stack(f)) if f is not None else []


def record(node: Node) -> None:
    """Store the forward traceback (and the running node, if any) in ``node.metadata``.
    Subscribed to the ``node_created`` event (:mod:`._events`) while the mode is on."""
    md = node.metadata
    md["traceback_"] = _user_frames(sys._getframe(1))
    parent = _running.node
    if parent is not None:
        md["parent_"] = parent


# ------------------------------------------------------------------- checking (backward)
def _stacklevel() -> int:
    """The ``warnings.warn`` stacklevel of the first caller outside the ftrans package."""
    f: FrameType | None = sys._getframe(2)
    level = 2
    while f is not None and f.f_code.co_filename.startswith(_ROOT):
        f = f.f_back
        level += 1
    return level


def _meta(node: Node) -> dict[Any, Any]:
    hk = node._hk
    return {} if hk is None or hk.meta is None else hk.meta


def warn_error(node: Node) -> None:
    """PyTorch's warnings for an error raised while running ``node``: its forward
    traceback, then the traceback of each node whose backward created it."""
    level = _stacklevel()
    md = _meta(node)
    first = True
    while True:
        name = node.name()
        tb = md.get("traceback_")
        if tb is None:
            msg = (f"Error detected in {name}. No forward pass information available. Enable "
                   "detect anomaly during forward pass for more information.")
        elif first:
            msg = (f"Error detected in {name}. Traceback of forward call that caused the "
                   "error:\n" + "".join(tb))
        else:
            msg = (f"\n\nPrevious calculation was induced by {name}. Traceback of forward call "
                   "that induced the previous calculation:\n" + "".join(tb))
        warnings.warn(msg, UserWarning, stacklevel=level)
        parent = md.get("parent_")
        if parent is None:
            return
        node = parent
        md = _meta(node)
        first = False


def _has_nan(g: Any) -> bool:
    d = getattr(g, "_data", g)   # a Tensor (create_graph) or an array
    dt = getattr(d, "dtype", None)
    if dt is None or dt.kind not in "fc":
        return False
    return bool(np.isnan(d).any())


def check_nan(node: Node, outs: Sequence[Any]) -> None:
    """``RuntimeError`` if one of ``node``'s outputs (gradients for its next edges)
    contains NaN; the index is the position in ``node.next_functions``."""
    idx = node._edge_idx
    for i, g in enumerate(outs):
        if g is not None and _has_nan(g):
            k = i if idx is None else (idx.index(i) if i in idx else i)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {k}th "
                               "output.")


def run_checked(node: Node, fn: Callable[..., Any], args: Sequence[Any],
                outputs: Any = True) -> Any:
    """``fn(*args)`` -- the engine running ``node`` -- with anomaly checks (subscribed to
    the ``node_run`` event of :mod:`._events` while the mode is on): ``node`` is
    the running node meanwhile (the parent of nodes it creates); an exception gets
    :func:`warn_error` and is re-raised; with ``outputs`` and ``check_nan``, NaN outputs
    raise (with the same warning)."""
    prev = _running.node
    _running.node = node
    try:
        outs = fn(*args)
        if outputs and _check_nan and outs is not None:
            check_nan(node, outs)
        return outs
    except Exception:
        warn_error(node)
        raise
    finally:
        _running.node = prev
