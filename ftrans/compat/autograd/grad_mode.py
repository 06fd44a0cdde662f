"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``.

The state is thread-local (one :class:`_State` per thread, starting with grad mode on
and inference mode off), as in PyTorch: a context manager entered in one thread does
not affect computations in another.  Every class works as a context manager and as a
decorator (with or without parentheses for ``no_grad``, ``enable_grad`` and
``inference_mode``), including on generator functions, where the mode is active only
while the generator runs.
"""
from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable, Generator
from typing import Any, Literal, TypeVar

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled",
           "enforce_grad_layout_policy"]


class _State(threading.local):
    grad = True
    inference = False
    multithreading = True
    grad_layout = True
    #: Grad mode as the function under a ``compat.func`` transform sees it: None outside
    #: such a function (and inside the transforms' own code, which runs with grad mode
    #: off); True when the function starts; switched by the user's ``no_grad``,
    #: ``enable_grad``, ``set_grad_enabled`` and ``inference_mode`` in it.  Where it is
    #: False, the Tensors the function makes from traced values are cut from reverse mode
    #: (``ftrans.primitives.stop_backward``): ``torch.func.grad``/``vjp``/``jacrev``
    #: respect a ``no_grad`` inside the function; forward mode is not affected.
    func_grad: bool | None = None


_tls = _State()

#: Set by :mod:`ftrans.compat._compile` while it stages a function: called when grad
#: mode is switched off (``no_grad``, ``set_grad_enabled(False)``, ``inference_mode``);
#: it refuses such a block written in the user's code (the staged program cannot cut
#: the gradient there).
_off_hook: Callable[[], None] | None = None


def _set_func_grad(mode: bool | None) -> bool | None:
    """Set the grad mode of the function under a ``compat.func`` transform when one is
    running (see :class:`_State`); returns the previous value to restore."""
    prev = _tls.func_grad
    if prev is not None:
        _tls.func_grad = mode
    return prev


def _restore_func_grad(prev: bool | None) -> None:
    if prev is not None:
        _tls.func_grad = prev


def is_grad_enabled() -> bool:
    """Whether operations in this thread are recorded for backward (``torch.is_grad_enabled``).

    Returns
    -------
    bool
        True unless a ``no_grad``, ``set_grad_enabled(False)`` or ``inference_mode``
        block is active in this thread.
    """
    return _tls.grad


def is_inference_mode_enabled() -> bool:
    """Whether inference mode is on in this thread (``torch.is_inference_mode_enabled``).

    Returns
    -------
    bool
        True inside ``inference_mode()`` in this thread.
    """
    return _tls.inference


class _DecoratorContextManager:
    """Context manager usable as a decorator (``@no_grad()``)."""

    def __call__(self, func: _F) -> _F:
        if inspect.isclass(func):
            raise RuntimeError(f"{type(self).__name__} cannot decorate a class; decorate its "
                               "methods instead")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)  # type: ignore[return-value]  # same signature

        @functools.wraps(func)
        def decorate_context(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)
        return decorate_context  # type: ignore[return-value]  # functools.wraps keeps it

    def _wrap_generator(self, func: Callable[..., Generator[Any, Any, Any]]
                        ) -> Callable[..., Generator[Any, Any, Any]]:
        @functools.wraps(func)
        def generator_context(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException as exc:  # forward throw() into the generator
                        with self.clone():
                            response = gen.throw(exc)
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as e:
                return e.value
        return generator_context

    def clone(self) -> _DecoratorContextManager:
        """A fresh context manager of the same kind and mode (one per decorated call).

        Returns
        -------
        _DecoratorContextManager
            A new, not yet entered instance.
        """
        return type(self)()

    def __enter__(self) -> None:
        raise NotImplementedError

    def __exit__(self, *exc: Any) -> bool | None:
        raise NotImplementedError


class _NoParamDecorator(_DecoratorContextManager):
    """Also usable bare: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable recording: results of operations do not require grad (``torch.no_grad``).

    Thread-local.  A context manager, or a decorator (``@no_grad`` or ``@no_grad()``;
    on a generator function the mode holds only while the generator runs).

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self) -> None:
        self.prev = False
        self.prev_func: bool | None = None

    def __enter__(self) -> None:
        if _off_hook is not None:
            _off_hook()
        self.prev = _tls.grad
        _tls.grad = False
        self.prev_func = _set_func_grad(False)

    def __exit__(self, *exc: Any) -> Literal[False]:
        _tls.grad = self.prev
        _restore_func_grad(self.prev_func)
        return False


class enable_grad(_NoParamDecorator):
    """Enable recording inside a ``no_grad``/``set_grad_enabled(False)`` block.

    ``torch.enable_grad``: thread-local; a context manager or a decorator (``@enable_grad``
    or ``@enable_grad()``).
    """

    def __init__(self) -> None:
        self.prev = False
        self.prev_func: bool | None = None

    def __enter__(self) -> None:
        self.prev = _tls.grad
        _tls.grad = True
        self.prev_func = _set_func_grad(True)

    def __exit__(self, *exc: Any) -> Literal[False]:
        _tls.grad = self.prev
        _restore_func_grad(self.prev_func)
        return False


class _SetFlag(_DecoratorContextManager):
    """Set the thread-local flag ``_attr`` to ``mode``: as a function (takes effect at
    once), a context manager (restores the previous value on exit) or a decorator."""

    _attr = ""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError(f"{type(self).__name__}(mode): mode must be a bool, got "
                            f"{type(mode).__name__}")
        self.prev = getattr(_tls, self._attr)
        self.mode = mode
        if _off_hook is not None and self._attr == "grad" and not mode:
            _off_hook()
        setattr(_tls, self._attr, mode)
        self.prev_func = _set_func_grad(mode) if self._attr == "grad" else None

    def __call__(self, func: _F) -> _F:
        setattr(_tls, self._attr, self.prev)  # used as a decorator: do not change it now
        _restore_func_grad(self.prev_func)
        return super().__call__(func)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: Any) -> Literal[False]:
        setattr(_tls, self._attr, self.prev)
        _restore_func_grad(self.prev_func)
        return False

    def clone(self) -> _SetFlag:
        """A fresh instance with the same mode (one per decorated call).

        Returns
        -------
        _SetFlag
            A new instance; creating it sets the flag, as a call does.
        """
        return type(self)(self.mode)


class set_grad_enabled(_SetFlag):
    """Set grad mode on or off (``torch.set_grad_enabled``).

    As a function it takes effect at once; as a context manager it restores the previous
    mode on exit; as a decorator it sets the mode for each call of the function.

    Parameters
    ----------
    mode : bool
        True to record operations for backward, False to stop recording.

    Raises
    ------
    TypeError
        If ``mode`` is not a bool.
    """

    _attr = "grad"


class set_multithreading_enabled(_SetFlag):
    """PyTorch's switch for running backward on per-device worker threads (thread-local).

    The compat engine always runs the backward pass on the calling thread (CPU only), so
    the flag is recorded and has no other effect.

    Parameters
    ----------
    mode : bool
        The flag's value.

    Raises
    ------
    TypeError
        If ``mode`` is not a bool.
    """

    _attr = "multithreading"


class enforce_grad_layout_policy(_SetFlag):
    """PyTorch's switch for the gradient layout contract (``.grad`` strides as the parameter's).

    Compat gradients are always new row-major (C-order) arrays, so the flag is recorded
    and has no other effect.

    Parameters
    ----------
    mode : bool
        The flag's value.

    Raises
    ------
    TypeError
        If ``mode`` is not a bool.
    """

    _attr = "grad_layout"


def is_multithreading_enabled() -> bool:
    """The flag set by :class:`set_multithreading_enabled` (recorded only).

    Returns
    -------
    bool
        The flag in this thread (True by default).
    """
    return _tls.multithreading


class inference_mode(_DecoratorContextManager):
    """Inference mode (``torch.inference_mode``): ``no_grad`` with inference tensors.

    Tensors created inside are *inference tensors* that may not be saved for backward
    (nor modified in place, nor made to require grad) outside inference mode.  A context
    manager or a decorator (``@inference_mode`` or ``@inference_mode()``); thread-local.

    Parameters
    ----------
    mode : bool, optional
        True (default) turns inference mode on (and grad mode off); False turns it off.
    """

    def __new__(cls, mode: bool | Callable[..., Any] = True) -> Any:
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # bare decorator: @inference_mode

    def __init__(self, mode: bool = True) -> None:
        if not isinstance(mode, bool):
            return
        self.mode = mode
        self.prev: tuple[bool, bool] = (True, False)
        self.prev_func: bool | None = None

    def __enter__(self) -> None:
        if _off_hook is not None and self.mode:
            _off_hook()
        self.prev = (_tls.grad, _tls.inference)
        # PyTorch: inference_mode(mode) sets grad mode to ``not mode``
        _tls.grad = not self.mode
        _tls.inference = self.mode
        self.prev_func = _set_func_grad(not self.mode)

    def __exit__(self, *exc: Any) -> Literal[False]:
        _tls.grad, _tls.inference = self.prev
        _restore_func_grad(self.prev_func)
        return False

    def clone(self) -> inference_mode:
        """A fresh instance with the same mode (one per decorated call).

        Returns
        -------
        inference_mode
            A new, not yet entered instance.
        """
        return inference_mode(self.mode)
