"""Layers of ``torch.nn`` (linear, embedding, reshaping here; convolution and pooling
in :mod:`.layers_conv`, normalization, dropout and padding in :mod:`.layers_norm`).
Parameter names, shapes, default initializations and reprs are
PyTorch's (``reset_parameters`` of each class); the forward passes are
:mod:`~ftrans.compat.nn.functional` calls."""
from __future__ import annotations

import math
from typing import Any

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, SizeLike, Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .layers_norm import (_empty, _BatchNorm, BatchNorm1d, BatchNorm2d, LayerNorm,  # noqa: F401
    GroupNorm, Dropout, Dropout1d, Dropout2d, InstanceNorm1d, InstanceNorm2d, ZeroPad2d,
    ConstantPad1d, ConstantPad2d, Upsample, CosineSimilarity, PairwiseDistance)
from .layers_conv import (_ConvNd, _ConvTransposeNd, _MaxPoolNd, Conv1d, Conv2d,  # noqa: F401
    Conv3d, ConvTranspose1d, ConvTranspose2d, MaxPool1d, MaxPool2d, AvgPool1d, AvgPool2d,
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d, AdaptiveMaxPool2d)

__all__ = ["Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Embedding", "Conv1d",
           "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d",
           "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
           "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "BatchNorm1d",
           "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Dropout1d", "Dropout2d"]


class Identity(Module):
    """Return the input unchanged (``torch.nn.Identity``).

    Parameters
    ----------
    *args, **kwargs : Any
        Accepted and ignored.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Return ``input``.

        Parameters
        ----------
        input : Tensor
            Any tensor.

        Returns
        -------
        Tensor
            ``input`` itself.
        """
        return input


class Linear(Module):
    """Affine map ``y = x A^T + b`` (``torch.nn.Linear``).

    ``weight (out_features, in_features)`` and ``bias (out_features,)`` are drawn from
    ``U(-1/sqrt(in_features), 1/sqrt(in_features))`` (PyTorch's init).

    Parameters
    ----------
    in_features : int
        Size of each input sample.
    out_features : int
        Size of each output sample.
    bias : bool, optional
        Learn the additive bias ``b`` (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Examples
    --------
    >>> import ftrans.compat as torch
    >>> fc = torch.nn.Linear(3, 2)
    >>> fc(torch.ones(4, 3)).shape
    torch.Size([4, 2])
    >>> fc
    Linear(in_features=3, out_features=2, bias=True)
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in_features), dtype, device))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype, device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw ``weight`` (Kaiming-uniform, ``a=sqrt(5)``) and ``bias`` (uniform, fan-in bound).
        """
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Apply ``F.linear(input, weight, bias)``.

        Parameters
        ----------
        input : Tensor
            ``(*, in_features)``.

        Returns
        -------
        Tensor
            ``(*, out_features)``.
        """
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class NonDynamicallyQuantizableLinear(Linear):
    """A Linear (the ``out_proj`` of MultiheadAttention carries this class name).

    Parameters
    ----------
    in_features : int
        Size of each input sample.
    out_features : int
        Size of each output sample.
    bias : bool, optional
        Learn the additive bias (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """


class Bilinear(Module):
    """Bilinear map ``y_o = x1^T A_o x2 + b_o`` (``torch.nn.Bilinear``).

    ``weight (out, in1, in2)`` and ``bias (out,)``, all from ``U(-1/sqrt(in1), 1/sqrt(in1))``.

    Parameters
    ----------
    in1_features : int
        Size of each first input sample.
    in2_features : int
        Size of each second input sample.
    out_features : int
        Size of each output sample.
    bias : bool, optional
        Learn the bias (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """

    def __init__(self, in1_features: int, in2_features: int, out_features: int, bias: bool = True,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(_empty((out_features, in1_features, in2_features), dtype,
                                       device))
        if bias:
            self.bias = Parameter(_empty((out_features,), dtype, device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw ``weight`` and ``bias`` from ``U(-1/sqrt(in1), 1/sqrt(in1))``.
        """
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        """Apply ``F.bilinear(input1, input2, weight, bias)``.

        Parameters
        ----------
        input1 : Tensor
            ``(*, in1_features)``.
        input2 : Tensor
            ``(*, in2_features)``.

        Returns
        -------
        Tensor
            ``(*, out_features)``.
        """
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Flatten(Module):
    """Flatten the axes ``start_dim..end_dim`` into one (``torch.nn.Flatten``).

    Parameters
    ----------
    start_dim : int, optional
        First axis (default 1, keeping the batch axis).
    end_dim : int, optional
        Last axis (default -1).
    """

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim = start_dim
        self.end_dim = end_dim

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Return ``input.flatten(start_dim, end_dim)``.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            The flattened tensor.
        """
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    """Split axis ``dim`` into ``unflattened_size`` (``torch.nn.Unflatten``).

    Parameters
    ----------
    dim : int
        The axis to split.
    unflattened_size : sequence of int
        Its new shape (one entry may be -1).
    """

    def __init__(self, dim: int, unflattened_size: SizeLike) -> None:
        super().__init__()
        self.dim = dim
        self.unflattened_size = unflattened_size

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Return ``input.unflatten(dim, unflattened_size)``.

        Parameters
        ----------
        input : Tensor
            Any shape.

        Returns
        -------
        Tensor
            The reshaped tensor.
        """
        return input.unflatten(self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Embedding(Module):
    """A lookup table of embedding vectors (``torch.nn.Embedding``).

    ``weight (num_embeddings, embedding_dim)`` is drawn from ``N(0, 1)``.

    Parameters
    ----------
    num_embeddings : int
        Number of rows.
    embedding_dim : int
        Size of each row.
    padding_idx : int, optional
        A row that is zero and gets no gradient (negative counts from the end).
    max_norm : float, optional
        Not supported (the forward raises NotImplementedError).
    norm_type : float, optional
        The norm of ``max_norm`` (default 2.0).
    scale_grad_by_freq : bool, optional
        Not supported (must be False).
    sparse : bool, optional
        Not supported (must be False).
    _weight : Tensor, optional
        Use this ``(num_embeddings, embedding_dim)`` tensor as the weight.
    _freeze : bool, optional
        The weight does not require grad.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    AssertionError
        If ``padding_idx`` is outside ``[-num_embeddings, num_embeddings)``.
    """

    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
                 max_norm: float | None = None, norm_type: float = 2.0,
                 scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight: Tensor | None = None, _freeze: bool = False, device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if padding_idx > 0 and padding_idx >= num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                if padding_idx < -num_embeddings:
                    raise AssertionError("Padding_idx must be within num_embeddings")
                padding_idx = num_embeddings + padding_idx
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            self.weight = Parameter(_empty((num_embeddings, embedding_dim), dtype, device),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Redraw ``weight`` from ``N(0, 1)``, zeroing the ``padding_idx`` row.
        """
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:  # noqa: A002
        """Look up the rows at the indices ``input`` (``F.embedding``).

        Parameters
        ----------
        input : Tensor
            Integer indices, any shape.

        Returns
        -------
        Tensor
            ``input.shape + (embedding_dim,)``.
        """
        return F.embedding(input, self.weight, self.padding_idx, self.max_norm,
                           self.norm_type, self.scale_grad_by_freq, self.sparse)

    @classmethod
    def from_pretrained(cls, embeddings: Tensor, freeze: bool = True,
                        padding_idx: int | None = None, max_norm: float | None = None,
                        norm_type: float = 2.0, scale_grad_by_freq: bool = False,
                        sparse: bool = False) -> Embedding:
        """An Embedding whose weight is ``embeddings``.

        Parameters
        ----------
        embeddings : Tensor
            ``(num_embeddings, embedding_dim)``.
        freeze : bool, optional
            The weight does not require grad (default True).
        padding_idx : int, optional
            As in the constructor.
        max_norm : float, optional
            As in the constructor.
        norm_type : float, optional
            As in the constructor.
        scale_grad_by_freq : bool, optional
            As in the constructor.
        sparse : bool, optional
            As in the constructor.

        Returns
        -------
        Embedding
            The new layer.
        """
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, max_norm, norm_type, scale_grad_by_freq, sparse,
                   _weight=embeddings, _freeze=freeze)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        if self.sparse is not False:
            s += ", sparse=True"
        return s
