"""More loss modules of ``torch.nn`` (margin, ranking, hinge, triplet, Poisson/Gaussian
NLL, soft-margin and CTC losses): thin wrappers of the functional losses with PyTorch's
constructor arguments; class weights are buffers, as in PyTorch."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from ..types import Tensor
from . import functional as F
from .layers import PairwiseDistance
from .loss import _Loss, _WeightedLoss

__all__ = ["CTCLoss", "CosineEmbeddingLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
           "MultiMarginLoss", "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss",
           "PoissonNLLLoss", "GaussianNLLLoss", "SoftMarginLoss", "TripletMarginLoss",
           "TripletMarginWithDistanceLoss"]


class CTCLoss(_Loss):
    """Connectionist temporal classification loss (``torch.nn.CTCLoss``).

    Parameters
    ----------
    blank : int, optional
        The blank label (default 0).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    zero_infinity : bool, optional
        Replace infinite losses (and their gradients) by zero (default False).

    Notes
    -----
    Graves et al. (2006), "Connectionist Temporal Classification".
    """

    def __init__(self, blank: int = 0, reduction: str = "mean",
                 zero_infinity: bool = False) -> None:
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs: Tensor, targets: Tensor, input_lengths: Tensor | Sequence[int],
                target_lengths: Tensor | Sequence[int]) -> Tensor:
        """Apply ``F.ctc_loss``.

        Parameters
        ----------
        log_probs : Tensor
            ``(T, N, C)`` or ``(T, C)`` log-probabilities.
        targets : Tensor
            ``(N, S)`` or the concatenated targets.
        input_lengths : Tensor or sequence of int
            ``(N,)`` lengths of the inputs.
        target_lengths : Tensor or sequence of int
            ``(N,)`` lengths of the targets.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


class _MarginLoss(_Loss):
    """The margin losses' base: the ``margin`` setting."""

    def __init__(self, margin: float = 0.0, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class CosineEmbeddingLoss(_MarginLoss):
    """``1 - cos(x1, x2)`` for ``y = 1``, ``max(0, cos(x1, x2) - margin)`` for ``y = -1``.

    As ``torch.nn.CosineEmbeddingLoss``.

    Parameters
    ----------
    margin : float, optional
        The margin (default 0.0).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Apply ``F.cosine_embedding_loss``.

        Parameters
        ----------
        input1 : Tensor
            First input.
        input2 : Tensor
            Second input.
        target : Tensor
            ``(N,)`` or ``()`` of 1 and -1.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """``x`` for ``y = 1``, ``max(0, margin - x)`` for ``y = -1`` (``torch.nn.HingeEmbeddingLoss``).

    Parameters
    ----------
    margin : float, optional
        The margin (default 1.0).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def __init__(self, margin: float = 1.0, size_average: bool | None = None,
                 reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.hinge_embedding_loss``.

        Parameters
        ----------
        input : Tensor
            Distances, any shape.
        target : Tensor
            1 and -1, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.hinge_embedding_loss(input, target, margin=self.margin,
                                      reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """``max(0, -y (x1 - x2) + margin)`` (``torch.nn.MarginRankingLoss``).

    Parameters
    ----------
    margin : float, optional
        The margin (default 0.0).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        """Apply ``F.margin_ranking_loss``.

        Parameters
        ----------
        input1 : Tensor
            First input.
        input2 : Tensor
            Second input.
        target : Tensor
            1 and -1, the inputs' shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss (``torch.nn.MultiMarginLoss``).

    Parameters
    ----------
    p : int, optional
        1 (default) or 2.
    margin : float, optional
        The margin (default 1.0).
    weight : Tensor, optional
        Per-class weights ``(C,)`` (a buffer).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Raises
    ------
    ValueError
        For ``p`` other than 1 or 2, or a ``weight`` that is not 1-d.
    """

    def __init__(self, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                 size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p, self.margin = p, margin

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.multi_margin_loss``.

        Parameters
        ----------
        input : Tensor
            Scores ``(N, C)`` or ``(C,)``.
        target : Tensor
            Class indices ``(N,)`` or ``()``.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    """Multi-class multi-label hinge loss (``torch.nn.MultiLabelMarginLoss``).

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
        """Apply ``F.multilabel_margin_loss``.

        Parameters
        ----------
        input : Tensor
            Scores ``(N, C)`` or ``(C,)``.
        target : Tensor
            Class indices, ``input``'s shape, ended by -1.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Multi-label one-versus-all logistic loss (``torch.nn.MultiLabelSoftMarginLoss``).

    Parameters
    ----------
    weight : Tensor, optional
        Per-class weights ``(C,)`` (a buffer).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def forward(self, input: Tensor, target: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.multilabel_soft_margin_loss``.

        Parameters
        ----------
        input : Tensor
            Logits ``(N, C)`` or ``(C,)``.
        target : Tensor
            0 and 1, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """Two-class logistic loss ``log(1 + exp(-y x))`` (``torch.nn.SoftMarginLoss``).

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
        """Apply ``F.soft_margin_loss``.

        Parameters
        ----------
        input : Tensor
            Scores, any shape.
        target : Tensor
            1 and -1, ``input``'s shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    """Negative log-likelihood of a Poisson target (``torch.nn.PoissonNLLLoss``).

    Parameters
    ----------
    log_input : bool, optional
        The input is the log of the rate (default True).
    full : bool, optional
        Add Stirling's approximation term (default False).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    eps : float, optional
        Added to the rate inside the log without ``log_input`` (default 1e-8).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def __init__(self, log_input: bool = True, full: bool = False, size_average: bool | None = None,
                 eps: float = 1e-8, reduce: bool | None = None, reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input: Tensor, target: Tensor) -> Tensor:
        """Apply ``F.poisson_nll_loss``.

        Parameters
        ----------
        log_input : Tensor
            The (log) rate.
        target : Tensor
            Counts, the same shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Negative log-likelihood of a Gaussian target (``torch.nn.GaussianNLLLoss``).

    Parameters
    ----------
    full : bool, optional
        Add the constant ``log(2 pi) / 2`` (default False).
    eps : float, optional
        Lower clamp of the variance (default 1e-6).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def __init__(self, *, full: bool = False, eps: float = 1e-6, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        self.full, self.eps = full, eps

    def forward(self, input: Tensor, target: Tensor, var: Tensor | float) -> Tensor:  # noqa: A002
        """Apply ``F.gaussian_nll_loss``.

        Parameters
        ----------
        input : Tensor
            The means ``(N, *)``.
        target : Tensor
            Samples, ``input``'s shape.
        var : Tensor or float
            Variances, ``input``'s shape or broadcastable (one per sample).

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class TripletMarginLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with the p-norm distance.

    As ``torch.nn.TripletMarginLoss``.

    Parameters
    ----------
    margin : float, optional
        The margin, positive (default 1.0).
    p : float, optional
        Norm order (default 2.0).
    eps : float, optional
        Added to the differences (default 1e-6).
    swap : bool, optional
        Use the distance swap (Balntas et al. 2016) (default False).
    size_average : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduce : bool, optional
        Deprecated (PyTorch's legacy reduction flag).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Raises
    ------
    ValueError
        If ``margin`` is not positive.
    """

    def __init__(self, margin: float = 1.0, p: float = 2.0, eps: float = 1e-6, swap: bool = False,
                 size_average: bool | None = None, reduce: bool | None = None,
                 reduction: str = "mean") -> None:
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """Apply ``F.triplet_margin_loss``.

        Parameters
        ----------
        anchor : Tensor
            ``(N, D)`` or ``(D,)``.
        positive : Tensor
            Same shape.
        negative : Tensor
            Same shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with a given distance.

    As ``torch.nn.TripletMarginWithDistanceLoss``.

    Parameters
    ----------
    distance_function : callable, optional
        ``d(x1, x2) -> Tensor`` (default ``PairwiseDistance()``).
    margin : float, optional
        The margin, positive (default 1.0).
    swap : bool, optional
        Use the distance swap (default False).
    reduction : str, optional
        ``'mean'`` (default), ``'sum'`` or ``'none'``.

    Raises
    ------
    ValueError
        If ``margin`` is not positive.
    """

    def __init__(self, *, distance_function: Callable[[Tensor, Tensor], Tensor] | None = None,
                 margin: float = 1.0, swap: bool = False, reduction: str = "mean") -> None:
        super().__init__(None, None, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater "
                             f"than 0, got {margin} instead")
        self.distance_function = distance_function if distance_function is not None \
            else PairwiseDistance()
        self.margin, self.swap = margin, swap

    def forward(self, anchor: Tensor, positive: Tensor, negative: Tensor) -> Tensor:
        """Apply ``F.triplet_margin_with_distance_loss``.

        Parameters
        ----------
        anchor : Tensor
            ``(N, D)`` or ``(D,)``.
        positive : Tensor
            Same shape.
        negative : Tensor
            Same shape.

        Returns
        -------
        Tensor
            A scalar, or the elementwise losses with ``reduction='none'``.
        """
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)
