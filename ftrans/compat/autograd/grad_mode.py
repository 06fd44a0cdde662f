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

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled", "set_multithreading_enabled",
           "enforce_grad_layout_policy"]


class _State(threading.local):
    grad = True
    inference = False
    multithreading = True
    grad_layout = True


_tls = _State()


def is_grad_enabled() -> bool:
    """True if operations in this thread are recorded for backward."""
    return _tls.grad


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()`` in this thread."""
    return _tls.inference


class _DecoratorContextManager:
    """Context manager usable as a decorator (``@no_grad()``)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError(f"{type(self).__name__} cannot decorate a class; decorate its "
                               "methods instead")
        if inspect.isgeneratorfunction(func):
            return self._wrap_generator(func)

        @functools.wraps(func)
        def decorate_context(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorate_context

    def _wrap_generator(self, func):
        @functools.wraps(func)
        def generator_context(*args, **kwargs):
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

    def clone(self):
        return type(self)()


class _NoParamDecorator(_DecoratorContextManager):
    """Also usable bare: ``@no_grad`` as well as ``@no_grad()``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)


class no_grad(_NoParamDecorator):
    """Disable recording: results of operations do not require grad (thread-local).

    >>> import ftrans.compat as torch
    >>> x = torch.ones(2, requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
    """

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _tls.grad
        _tls.grad = False

    def __exit__(self, *exc):
        _tls.grad = self.prev
        return False


class enable_grad(_NoParamDecorator):
    """Enable recording inside a ``no_grad``/``set_grad_enabled(False)`` block."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _tls.grad
        _tls.grad = True

    def __exit__(self, *exc):
        _tls.grad = self.prev
        return False


class _SetFlag(_DecoratorContextManager):
    """Set the thread-local flag ``_attr`` to ``mode``: as a function (takes effect at
    once), a context manager (restores the previous value on exit) or a decorator."""

    _attr = ""

    def __init__(self, mode: bool):
        if not isinstance(mode, bool):
            raise TypeError(f"{type(self).__name__}(mode): mode must be a bool, got "
                            f"{type(mode).__name__}")
        self.prev = getattr(_tls, self._attr)
        self.mode = mode
        setattr(_tls, self._attr, mode)

    def __call__(self, func):
        setattr(_tls, self._attr, self.prev)  # used as a decorator: do not change it now
        return super().__call__(func)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        setattr(_tls, self._attr, self.prev)
        return False

    def clone(self):
        return type(self)(self.mode)


class set_grad_enabled(_SetFlag):
    """Set grad mode to ``mode``: as a function (takes effect at once), a context manager
    (restores the previous mode on exit) or a decorator."""

    _attr = "grad"


class set_multithreading_enabled(_SetFlag):
    """PyTorch's switch for running the backward pass on per-device worker threads
    (thread-local).  The compat engine always runs the backward pass on the calling
    thread (CPU only), so the flag is recorded and has no other effect."""

    _attr = "multithreading"


class enforce_grad_layout_policy(_SetFlag):
    """PyTorch's switch for the gradient layout contract (accumulated ``.grad`` strides
    matching the parameter's).  Compat gradients are always new row-major (C-order)
    arrays, so the flag is recorded and has no other effect."""

    _attr = "grad_layout"


def is_multithreading_enabled() -> bool:
    return _tls.multithreading


class inference_mode(_DecoratorContextManager):
    """Inference mode: like ``no_grad``, and tensors created inside are *inference
    tensors* that may not be saved for backward (nor modified in place, nor made to
    require grad) outside inference mode.  ``inference_mode(False)`` turns it off."""

    def __new__(cls, mode=True):
        if isinstance(mode, bool):
            return super().__new__(cls)
        return cls()(mode)  # bare decorator: @inference_mode

    def __init__(self, mode: bool = True):
        if not isinstance(mode, bool):
            return
        self.mode = mode
        self.prev = None

    def __enter__(self):
        self.prev = (_tls.grad, _tls.inference)
        # PyTorch: inference_mode(mode) sets grad mode to ``not mode``
        _tls.grad = not self.mode
        _tls.inference = self.mode

    def __exit__(self, *exc):
        _tls.grad, _tls.inference = self.prev
        return False

    def clone(self):
        return inference_mode(self.mode)
