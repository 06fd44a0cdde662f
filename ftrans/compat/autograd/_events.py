"""Events of the compat autograd graph and engine, and their subscribers.

The graph (node creation) and the backward engine (running nodes) sit low in compat's
import graph; the tools that watch them -- anomaly mode, the profiler -- sit above and
*subscribe* here, so that neither the graph nor the engine imports them.  This module
imports nothing of ftrans.

Two events, each a tuple of subscribers (replaced on each change, never mutated: the
graph and the engine read it without a lock; an empty tuple costs one truth test):

``node_created``
    ``fn(node)`` for every node recorded in the graph (custom Function nodes, primitive
    nodes, ``AccumulateGrad``).  Anomaly mode stores the forward traceback there.
``node_run``
    ``fn(node, run, args, outputs)`` around each backward node the engine runs; it must
    return ``run(*args)`` (the node's output gradients where ``outputs`` is True; None for
    an ``AccumulateGrad``, ``outputs`` False).  The first subscriber is the outermost.
    While any is subscribed the engine runs every node through its general path
    (``_engine._run_node``/``_run_acc``, no inline fast path).  Anomaly mode checks errors
    and NaN; the profiler subscribes a pass-through (it records the calls of those two
    functions through their code objects).

>>> from ftrans.compat.autograd import _events
>>> seen = []
>>> h = _events.subscribe("node_created", seen.append)
>>> _events.unsubscribe("node_created", h)
"""
from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

__all__: list[str] = []

node_created: tuple[Callable[..., Any], ...] = ()
node_run: tuple[Callable[..., Any], ...] = ()

_EVENTS = ("node_created", "node_run")
_lock = threading.Lock()


def _check(event: str) -> None:
    if event not in _EVENTS:
        raise ValueError(f"unknown autograd event {event!r}; expected one of {list(_EVENTS)}")


def subscribe(event: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``fn`` to the subscribers of ``event`` (a name of :data:`_EVENTS`); returns
    ``fn`` (pass it to :func:`unsubscribe`).  ``ValueError`` for an unknown event,
    ``TypeError`` if ``fn`` is not callable."""
    _check(event)
    if not callable(fn):
        raise TypeError(f"an autograd event subscriber must be callable, got {type(fn).__name__}")
    g = globals()
    with _lock:
        g[event] = g[event] + (fn,)
    return fn


def unsubscribe(event: str, fn: Callable[..., Any]) -> None:
    """Remove one subscription of ``fn`` (the same object) from ``event``; no error if
    it is not subscribed."""
    _check(event)
    g = globals()
    with _lock:
        subs = g[event]
        for i, s in enumerate(subs):
            if s is fn:
                g[event] = subs[:i] + subs[i + 1:]
                break


def created(node: Any) -> None:
    """Publish ``node_created`` for ``node`` (callers test ``node_created`` first)."""
    for fn in node_created:
        fn(node)


def _wrap(sub: Callable[..., Any], node: Any, run: Callable[..., Any], outputs: Any
          ) -> Callable[..., Any]:
    return lambda *args: sub(node, run, args, outputs)


def run_node(node: Any, run: Callable[..., Any], args: tuple[Any, ...] | list[Any],
             outputs: Any = True) -> Any:
    """``run(*args)`` -- the engine running ``node`` -- through the ``node_run``
    subscribers (the first one outermost)."""
    for sub in reversed(node_run):
        run = _wrap(sub, node, run, outputs)
    return run(*args)
