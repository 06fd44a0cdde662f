"""Activation modules and ``MultiheadAttention`` (``torch.nn.modules.activation``)."""
from __future__ import annotations

from collections.abc import Callable

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from ._attention import MultiheadAttention

__all__ = ["ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softplus",
           "Softmax", "LogSoftmax", "LogSigmoid", "MultiheadAttention", "ReLU6", "Hardtanh",
           "PReLU", "SELU", "CELU", "Mish", "Hardsigmoid", "Hardswish", "Softsign",
           "Tanhshrink", "Threshold", "Softmin"]


class ReLU(Module):
    """``max(0, x)`` elementwise (``torch.nn.ReLU``).

    Parameters
    ----------
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.relu`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    """``x`` for ``x > 0``, ``negative_slope * x`` otherwise (``torch.nn.LeakyReLU``).

    Parameters
    ----------
    negative_slope : float, optional
        Slope for negative inputs (default 0.01).
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, negative_slope: float = 1e-2, inplace: bool = False) -> None:
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.leaky_relu`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    """``x`` for ``x > 0``, ``alpha (exp(x) - 1)`` otherwise (``torch.nn.ELU``).

    Parameters
    ----------
    alpha : float, optional
        Scale of the negative part (default 1.0).
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.elu`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    """``x Phi(x)``, the Gaussian error linear unit (``torch.nn.GELU``).

    Notes
    -----
    Hendrycks and Gimpel (2016), "Gaussian Error Linear Units".

    Parameters
    ----------
    approximate : str, optional
        ``'none'`` (exact, with ``erf``; default) or ``'tanh'`` (PyTorch's tanh formula).
    """

    def __init__(self, approximate: str = "none") -> None:
        super().__init__()
        self.approximate = approximate

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.gelu`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    """``x * sigmoid(x)`` elementwise (``torch.nn.SiLU``).

    Parameters
    ----------
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.silu`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    """``1 / (1 + exp(-x))`` elementwise (``torch.nn.Sigmoid``).

    Parameters
    ----------
    *args, **kwargs : Any
        None accepted (``Module.__init__``'s signature): the layer has no settings.
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``torch.sigmoid`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return torch.sigmoid(input)


class Tanh(Module):
    """Hyperbolic tangent elementwise (``torch.nn.Tanh``).

    Parameters
    ----------
    *args, **kwargs : Any
        None accepted (``Module.__init__``'s signature): the layer has no settings.
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``torch.tanh`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return torch.tanh(input)


class LogSigmoid(Module):
    """``log(sigmoid(x))`` elementwise, without overflow (``torch.nn.LogSigmoid``).

    Parameters
    ----------
    *args, **kwargs : Any
        None accepted (``Module.__init__``'s signature): the layer has no settings.
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.logsigmoid`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.logsigmoid(input)


class Softplus(Module):
    """``log(1 + exp(beta x)) / beta`` elementwise (``torch.nn.Softplus``).

    Parameters
    ----------
    beta : float, optional
        Sharpness (default 1.0).
    threshold : float, optional
        Above ``beta x > threshold`` the layer is the identity (default 20.0).
    """

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.softplus`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    """Softmax along ``dim`` (``torch.nn.Softmax``).

    Parameters
    ----------
    dim : int or None, optional
        The axis that sums to 1; None picks PyTorch's deprecated implicit axis (with a warning).
    """

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.softmax`` along ``self.dim``.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape as ``input``; entries in [0, 1] summing to 1 along ``dim``.
        """
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``dim`` (``torch.nn.LogSoftmax``).

    Parameters
    ----------
    dim : int or None, optional
        The normalized axis; None picks PyTorch's deprecated implicit axis (with a warning).
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.log_softmax`` along ``self.dim``.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape as ``input``.
        """
        return F.log_softmax(input, self.dim)


class Hardtanh(Module):
    """``clamp(x, min_val, max_val)`` elementwise (``torch.nn.Hardtanh``).

    Parameters
    ----------
    min_val : float, optional
        Lower bound (default -1.0).
    max_val : float, optional
        Upper bound (default 1.0); must exceed ``min_val`` (ValueError otherwise).
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.hardtanh`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class ReLU6(Hardtanh):
    """``min(max(0, x), 6)`` elementwise (``torch.nn.ReLU6``).

    Parameters
    ----------
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return "inplace=True" if self.inplace else ""


class PReLU(Module):
    """``max(0, x) + a * min(0, x)`` with a learnable slope ``a`` (``torch.nn.PReLU``).

    Parameters
    ----------
    num_parameters : int, optional
        Number of slopes in ``weight``: 1 (shared) or the channel count C of axis 1 (default 1).
    init : float, optional
        Initial slope (default 0.25).
    device : DeviceLike, optional
        Accepted for torch's signature; compat parameters live on the CPU.
    dtype : dtype, optional
        The parameter's dtype (default: the default dtype).
    """

    def __init__(self, num_parameters: int = 1, init: float = 0.25, device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(torch.full((num_parameters,), float(init), dtype=dtype))

    def reset_parameters(self) -> None:
        """Set every slope back to ``init``."""
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.prelu with ``self.weight```` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"num_parameters={self.num_parameters}"


def _simple(name: str, fn: Callable[..., Tensor], summary: str, *, inplace: bool = True,
            show_inplace: bool = True) -> type[Module]:
    """An activation module without parameters applying ``fn(input[, inplace])``, with
    its docstrings (``summary``: the class's one-line summary)."""
    def __init__(self: Module, inplace: bool = False) -> None:
        Module.__init__(self)
        self.inplace = inplace

    def forward(self: Module, input: Tensor) -> Tensor:  # noqa: A002
        return fn(input, inplace=self.inplace) if inplace else fn(input)

    def extra_repr(self: Module) -> str:
        return "inplace=True" if show_inplace and getattr(self, "inplace", False) else ""
    forward.__doc__ = (f"Apply ``F.{fn.__name__}`` elementwise.\n\n" + _FWD_DOC)
    extra_repr.__doc__ = _EXTRA_DOC
    params = _INPLACE_DOC if inplace else _NOARGS_DOC
    ns = {"forward": forward, "extra_repr": extra_repr, "__module__": __name__,
          "__doc__": f"{summary} (``torch.nn.{name}``).\n\n{params}"}
    if inplace:
        ns["__init__"] = __init__
    cls = type(name, (Module,), ns)
    for f in (__init__, forward, extra_repr):
        f.__qualname__ = f"{name}.{f.__name__}"
    return cls


_FWD_DOC = """Parameters
----------
input : Tensor
    Any shape.

Returns
-------
Tensor
    Same shape and dtype as ``input``.
"""
_EXTRA_DOC = """The constructor settings shown in ``repr(module)``.

Returns
-------
str
    The settings, comma-separated.
"""
_INPLACE_DOC = """Parameters
----------
inplace : bool, optional
    Overwrite ``input`` with the result (default False).
"""
_NOARGS_DOC = """Parameters
----------
*args, **kwargs : Any
    None accepted (``Module.__init__``'s signature): the layer has no settings.
"""

SELU = _simple("SELU", F.selu, "``scale * elu(x, alpha)`` with Klambauer et al.'s constants")
Mish = _simple("Mish", F.mish, "``x * tanh(softplus(x))`` elementwise")
Hardsigmoid = _simple("Hardsigmoid", F.hardsigmoid, "``relu6(x + 3) / 6`` elementwise",
                      show_inplace=False)
Hardswish = _simple("Hardswish", F.hardswish, "``x * relu6(x + 3) / 6`` elementwise",
                    show_inplace=False)
Softsign = _simple("Softsign", F.softsign, "``x / (1 + |x|)`` elementwise", inplace=False)
Tanhshrink = _simple("Tanhshrink", F.tanhshrink, "``x - tanh(x)`` elementwise", inplace=False)


class CELU(Module):
    """``max(0, x) + min(0, alpha (exp(x / alpha) - 1))`` elementwise (``torch.nn.CELU``).

    Parameters
    ----------
    alpha : float, optional
        Scale of the negative part (default 1.0).
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.celu`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Threshold(Module):
    """``x`` where ``x > threshold``, else ``value`` (``torch.nn.Threshold``).

    Parameters
    ----------
    threshold : float
        The threshold.
    value : float
        The replacement at and below it.
    inplace : bool, optional
        Overwrite ``input`` with the result (default False).
    """

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.threshold`` elementwise.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape and dtype as ``input``.
        """
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"threshold={self.threshold}, value={self.value}"
                + (", inplace=True" if self.inplace else ""))


class Softmin(Softmax):
    """``softmax(-x)`` along ``dim`` (``torch.nn.Softmin``).

    Parameters
    ----------
    dim : int or None, optional
        The axis that sums to 1; None picks PyTorch's deprecated implicit axis (with a warning).
    """

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.softmin`` along ``self.dim``.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            Same shape as ``input``; entries summing to 1 along ``dim``.
        """
        return F.softmin(input, self.dim)
