"""Loss modules (``torch.nn.modules.loss``): thin wrappers of the functional losses;
class weights and ``pos_weight`` are registered as buffers, as in PyTorch."""
from __future__ import annotations

from ..types import Tensor
from . import functional as F
from .module import Module

__all__ = ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss"]


class _Loss(Module):
    """The loss modules' base: the ``reduction`` setting."""

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__()
        self.reduction = F._legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    """The class-weighted loss modules' base: a ``weight`` buffer."""

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    """Mean squared error ``(input - target)^2`` (``torch.nn.MSELoss``).

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.mse_loss``.

        Parameters
        ----------
        input : Tensor
            Predictions ``(*)``.
        target : Tensor
            Targets, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    """Mean absolute error ``|input - target|`` (``torch.nn.L1Loss``).

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.l1_loss``.

        Parameters
        ----------
        input : Tensor
            Predictions ``(*)``.
        target : Tensor
            Targets, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.l1_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Squared error below ``beta``, absolute error above (``torch.nn.SmoothL1Loss``).

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    beta : float, optional
        The switch point (default 1.0).
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", beta: float = 1.0) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.smooth_l1_loss``.

        Parameters
        ----------
        input : Tensor
            Predictions ``(*)``.
        target : Tensor
            Targets, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Huber loss: squared error below ``delta``, ``delta``-scaled absolute error above.

    As ``torch.nn.HuberLoss``.

    Parameters
    ----------
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    delta : float, optional
        The switch point (default 1.0).
    """

    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.huber_loss``.

        Parameters
        ----------
        input : Tensor
            Predictions ``(*)``.
        target : Tensor
            Targets, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices given log-probabilities (``torch.nn.NLLLoss``).

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights ``(C,)`` (a buffer).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    ignore_index : int, optional
        A target value that contributes nothing (default -100).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.nll_loss``.

        Parameters
        ----------
        input : Tensor
            Log-probabilities ``(N, C, *)`` or ``(C,)``.
        target : Tensor
            Class indices ``(N, *)`` or ``()``.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits and class indices or class probabilities.

    As ``torch.nn.CrossEntropyLoss``.

    ``log_softmax`` followed by ``nll_loss`` for class indices.

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights ``(C,)`` (a buffer).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    ignore_index : int, optional
        A target index that contributes nothing (default -100).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    label_smoothing : float, optional
        Mix the targets with the uniform distribution by this amount (default 0.0).
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean",
                 label_smoothing: float = 0.0) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.cross_entropy``.

        Parameters
        ----------
        input : Tensor
            Logits ``(N, C, *)`` or ``(C,)``.
        target : Tensor
            Class indices ``(N, *)`` or probabilities of ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.cross_entropy(input, target, weight=self.weight,
                               ignore_index=self.ignore_index, reduction=self.reduction,
                               label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities (``torch.nn.BCELoss``).

    Parameters
    ----------
    weight : Tensor, optional
        Weights broadcast against the elementwise losses (a buffer).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.binary_cross_entropy``.

        Parameters
        ----------
        input : Tensor
            Probabilities in [0, 1].
        target : Tensor
            Targets in [0, 1], ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.binary_cross_entropy(input, target, weight=self.weight,
                                      reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits, computed stably (``torch.nn.BCEWithLogitsLoss``).

    Parameters
    ----------
    weight : Tensor, optional
        Weights broadcast against the elementwise losses (a buffer).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    pos_weight : Tensor, optional
        Weight of the positive term per class (a buffer).
    """

    def __init__(self, weight: Tensor | None = None, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean",
                 pos_weight: Tensor | None = None) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.binary_cross_entropy_with_logits``.

        Parameters
        ----------
        input : Tensor
            Logits.
        target : Tensor
            Targets in [0, 1], ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    """Kullback-Leibler divergence of ``target`` from the log-probabilities ``input``.

    As ``torch.nn.KLDivLoss``.

    Parameters
    ----------
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'batchmean'``, ``'sum'`` or ``'none'``.
    log_target : bool, optional
        ``target`` holds log-probabilities (default False).
    """

    def __init__(self, size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean", log_target: bool = False) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.kl_div``.

        Parameters
        ----------
        input : Tensor
            Log-probabilities.
        target : Tensor
            Probabilities (log-probabilities with ``log_target``).

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
