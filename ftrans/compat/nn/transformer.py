"""Transformer layers (Vaswani et al. 2017) as PyTorch defines them:
``TransformerEncoderLayer`` (self-attention and a feed-forward block, each with dropout,
a residual connection and LayerNorm -- after the block, or before with ``norm_first``),
``TransformerDecoderLayer`` (plus cross-attention to the encoder's memory), the stacks
``TransformerEncoder``/``TransformerDecoder`` (deep copies of one layer, an optional
final norm) and ``Transformer``.  Module names match PyTorch's, so state dicts
interchange."""
from __future__ import annotations

import copy
from collections.abc import Callable

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from .module import Module
from .activation import MultiheadAttention
from .layers import Linear, Dropout, LayerNorm
from .container import ModuleList
from . import init

__all__ = ["TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
           "TransformerDecoder", "Transformer"]


def _activation(activation: str | Callable[[Tensor], Tensor]) -> Callable[..., Tensor]:
    if isinstance(activation, str):
        if activation == "relu":
            return F.relu
        if activation == "gelu":
            return F.gelu
        raise RuntimeError(f"activation should be relu/gelu, not {activation}")
    return activation


def _causal_mask(sz: int, dtype: DTypeArg = None, device: DeviceLike = None) -> Tensor:
    """``(sz, sz)`` float mask: 0 on and below the diagonal, -inf above."""
    return torch.full((sz, sz), float("-inf"), dtype=dtype, device=device).triu(1)


class TransformerEncoderLayer(Module):
    """Self-attention and a feed-forward block (``torch.nn.TransformerEncoderLayer``).

    Each block has dropout, a residual connection and LayerNorm.  Submodules ``self_attn``,
    ``linear1``, ``dropout``, ``linear2``, ``norm1``, ``norm2``, ``dropout1``, ``dropout2``
    (PyTorch's names, so state dicts interchange).

    Parameters
    ----------
    d_model : int
        Model dimension E.
    nhead : int
        Attention heads; must divide ``d_model``.
    dim_feedforward : int, optional
        Hidden size of the feed-forward block (default 2048).
    dropout : float, optional
        Dropout probability (default 0.1).
    activation : str or callable, optional
        ``'relu'``, ``'gelu'`` or a function of one Tensor (default ``F.relu``).
    layer_norm_eps : float, optional
        LayerNorm's eps (default 1e-5).
    batch_first : bool, optional
        Inputs are ``(N, L, E)`` instead of ``(L, N, E)`` (default False).
    norm_first : bool, optional
        LayerNorm before each block instead of after (default False).
    bias : bool, optional
        Biases in the linear layers and norms (default True).
    device : DeviceLike, optional
        Accepted for torch's signature; compat parameters live on the CPU.
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    RuntimeError
        For an ``activation`` string other than ``'relu'``/``'gelu'``.

    Notes
    -----
    Vaswani et al. (2017), "Attention Is All You Need".
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)

    def forward(self, src: Tensor, src_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None, is_causal: bool = False) -> Tensor:
        """Encode ``src``.

        Parameters
        ----------
        src : Tensor
            ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or ``(L, E)``.
        src_mask : Tensor, optional
            ``(L, L)`` or ``(N * nhead, L, L)`` attention mask (bool True: masked, or added float).
        src_key_padding_mask : Tensor, optional
            ``(N, L)``: keys to ignore.
        is_causal : bool, optional
            A hint that the mask is the causal mask.

        Returns
        -------
        Tensor
            Same shape as ``src``.
        """
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


class TransformerDecoderLayer(Module):
    """Self-attention, cross-attention to the memory and a feed-forward block.

    As ``torch.nn.TransformerDecoderLayer``.

    Submodules ``self_attn``, ``multihead_attn``, ``linear1``, ``dropout``, ``linear2``,
    ``norm1..3``, ``dropout1..3`` (PyTorch's names).

    Parameters
    ----------
    d_model : int
        Model dimension E.
    nhead : int
        Attention heads; must divide ``d_model``.
    dim_feedforward : int, optional
        Hidden size of the feed-forward block (default 2048).
    dropout : float, optional
        Dropout probability (default 0.1).
    activation : str or callable, optional
        ``'relu'``, ``'gelu'`` or a function of one Tensor (default ``F.relu``).
    layer_norm_eps : float, optional
        LayerNorm's eps (default 1e-5).
    batch_first : bool, optional
        Inputs are ``(N, L, E)`` instead of ``(L, N, E)`` (default False).
    norm_first : bool, optional
        LayerNorm before each block instead of after (default False).
    bias : bool, optional
        Biases in the linear layers and norms (default True).
    device : DeviceLike, optional
        Accepted for torch's signature; compat parameters live on the CPU.
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    RuntimeError
        For an ``activation`` string other than ``'relu'``/``'gelu'``.
    """

    def __init__(self, d_model: int, nhead: int, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa_block(self, x: Tensor, attn_mask: Tensor | None, key_padding_mask: Tensor | None,
                  is_causal: bool) -> Tensor:
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x: Tensor, mem: Tensor, attn_mask: Tensor | None,
                   key_padding_mask: Tensor | None, is_causal: bool) -> Tensor:
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x: Tensor) -> Tensor:
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool = False,
                memory_is_causal: bool = False) -> Tensor:
        """Decode ``tgt`` attending to ``memory``.

        Parameters
        ----------
        tgt : Tensor
            ``(T, N, E)`` (``(N, T, E)`` with ``batch_first``) or ``(T, E)``.
        memory : Tensor
            The encoder's output ``(S, N, E)``.
        tgt_mask : Tensor, optional
            ``(T, T)`` self-attention mask.
        memory_mask : Tensor, optional
            ``(T, S)`` cross-attention mask.
        tgt_key_padding_mask : Tensor, optional
            ``(N, T)``: target positions to ignore.
        memory_key_padding_mask : Tensor, optional
            ``(N, S)``: memory positions to ignore.
        tgt_is_causal : bool, optional
            A hint that ``tgt_mask`` is the causal mask.
        memory_is_causal : bool, optional
            A hint that ``memory_mask`` is the causal mask.

        Returns
        -------
        Tensor
            Same shape as ``tgt``.
        """
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask,
                                   tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask,
                                    memory_key_padding_mask, memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask,
                                              tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask,
                                               memory_key_padding_mask, memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x


class TransformerEncoder(Module):
    """A stack of encoder layers (``torch.nn.TransformerEncoder``).

    Parameters
    ----------
    encoder_layer : TransformerEncoderLayer
        Deep-copied ``num_layers`` times (``layers``).
    num_layers : int
        Number of layers.
    norm : Module, optional
        A final normalization.
    enable_nested_tensor : bool, optional
        Kept as an attribute (PyTorch's fast path; the results here are those of the plain
        layer-by-layer computation).
    mask_check : bool, optional
        Kept as an attribute.
    """

    def __init__(self, encoder_layer: Module, num_layers: int, norm: Module | None = None,
                 enable_nested_tensor: bool = True, mask_check: bool = True) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(encoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm
        self.enable_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check

    def forward(self, src: Tensor, mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                is_causal: bool | None = None) -> Tensor:
        """Pass ``src`` through the layers and the final norm.

        Parameters
        ----------
        src : Tensor
            ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or ``(L, E)``.
        mask : Tensor, optional
            Attention mask of every layer.
        src_key_padding_mask : Tensor, optional
            ``(N, L)``: keys to ignore.
        is_causal : bool, optional
            A hint that ``mask`` is the causal mask.

        Returns
        -------
        Tensor
            Same shape as ``src``.
        """
        out = src
        for mod in self.layers:
            out = mod(out, src_mask=mask, is_causal=bool(is_causal),
                      src_key_padding_mask=src_key_padding_mask)
        return self.norm(out) if self.norm is not None else out


class TransformerDecoder(Module):
    """A stack of decoder layers (``torch.nn.TransformerDecoder``).

    Parameters
    ----------
    decoder_layer : TransformerDecoderLayer
        Deep-copied ``num_layers`` times (``layers``).
    num_layers : int
        Number of layers.
    norm : Module, optional
        A final normalization.
    """

    def __init__(self, decoder_layer: Module, num_layers: int, norm: Module | None = None) -> None:
        super().__init__()
        self.layers = ModuleList([copy.deepcopy(decoder_layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor | None = None,
                memory_mask: Tensor | None = None, tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, tgt_is_causal: bool | None = None,
                memory_is_causal: bool = False) -> Tensor:
        """Pass ``tgt`` through the layers (attending to ``memory``) and the final norm.

        Parameters
        ----------
        tgt : Tensor
            ``(T, N, E)`` (``(N, T, E)`` with ``batch_first``) or ``(T, E)``.
        memory : Tensor
            The encoder's output ``(S, N, E)``.
        tgt_mask : Tensor, optional
            ``(T, T)`` self-attention mask.
        memory_mask : Tensor, optional
            ``(T, S)`` cross-attention mask.
        tgt_key_padding_mask : Tensor, optional
            ``(N, T)``: target positions to ignore.
        memory_key_padding_mask : Tensor, optional
            ``(N, S)``: memory positions to ignore.
        tgt_is_causal : bool, optional
            A hint that ``tgt_mask`` is the causal mask.
        memory_is_causal : bool, optional
            A hint that ``memory_mask`` is the causal mask.

        Returns
        -------
        Tensor
            Same shape as ``tgt``.
        """
        out = tgt
        for mod in self.layers:
            out = mod(out, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask,
                      memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self.norm(out) if self.norm is not None else out


class Transformer(Module):
    """Encoder-decoder Transformer (``torch.nn.Transformer``).

    ``encoder`` (``num_encoder_layers`` layers and a LayerNorm) and ``decoder``; every parameter
    with more than one dimension is re-initialized Xavier-uniform, as in PyTorch.

    Parameters
    ----------
    d_model : int, optional
        Model dimension E (default 512).
    nhead : int, optional
        Attention heads (default 8).
    num_encoder_layers : int, optional
        Encoder layers (default 6).
    num_decoder_layers : int, optional
        Decoder layers (default 6).
    dim_feedforward : int, optional
        Hidden size of the feed-forward blocks (default 2048).
    dropout : float, optional
        Dropout probability (default 0.1).
    activation : str or callable, optional
        ``'relu'``, ``'gelu'`` or a function (default ``F.relu``).
    custom_encoder : Module, optional
        Use this encoder instead.
    custom_decoder : Module, optional
        Use this decoder instead.
    layer_norm_eps : float, optional
        LayerNorm's eps (default 1e-5).
    batch_first : bool, optional
        Inputs are ``(N, L, E)`` (default False).
    norm_first : bool, optional
        LayerNorm before each block (default False).
    bias : bool, optional
        Biases in the linear layers and norms (default True).
    device : DeviceLike, optional
        Accepted for torch's signature; compat parameters live on the CPU.
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Notes
    -----
    Vaswani et al. (2017), "Attention Is All You Need".
    """

    def __init__(self, d_model: int = 512, nhead: int = 8, num_encoder_layers: int = 6,
                 num_decoder_layers: int = 6, dim_feedforward: int = 2048, dropout: float = 0.1,
                 activation: str | Callable[[Tensor], Tensor] = F.relu,
                 custom_encoder: Module | None = None, custom_decoder: Module | None = None,
                 layer_norm_eps: float = 1e-5, batch_first: bool = False, norm_first: bool = False,
                 bias: bool = True, device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout,
                                            activation, layer_norm_eps, batch_first,
                                            norm_first, bias, dtype=dtype)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps,
                                                        bias=bias, dtype=dtype))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            dec_layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout,
                                                activation, layer_norm_eps, batch_first,
                                                norm_first, bias, dtype=dtype)
            self.decoder = TransformerDecoder(dec_layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps,
                                                        bias=bias, dtype=dtype))
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)
        self.d_model = d_model
        self.nhead = nhead
        self.batch_first = batch_first

    def forward(self, src: Tensor, tgt: Tensor, src_mask: Tensor | None = None,
                tgt_mask: Tensor | None = None, memory_mask: Tensor | None = None,
                src_key_padding_mask: Tensor | None = None,
                tgt_key_padding_mask: Tensor | None = None,
                memory_key_padding_mask: Tensor | None = None, src_is_causal: bool | None = None,
                tgt_is_causal: bool | None = None, memory_is_causal: bool = False) -> Tensor:
        """Encode ``src`` and decode ``tgt`` attending to the encoding.

        Parameters
        ----------
        src : Tensor
            ``(S, N, E)`` (``(N, S, E)`` with ``batch_first``) or ``(S, E)``.
        tgt : Tensor
            ``(T, N, E)`` or ``(T, E)``.
        src_mask : Tensor, optional
            ``(S, S)`` encoder mask.
        tgt_mask : Tensor, optional
            ``(T, T)`` decoder self-attention mask.
        memory_mask : Tensor, optional
            ``(T, S)`` cross-attention mask.
        src_key_padding_mask : Tensor, optional
            ``(N, S)``.
        tgt_key_padding_mask : Tensor, optional
            ``(N, T)``.
        memory_key_padding_mask : Tensor, optional
            ``(N, S)``.
        src_is_causal : bool, optional
            A hint that ``src_mask`` is causal.
        tgt_is_causal : bool, optional
            A hint that ``tgt_mask`` is causal.
        memory_is_causal : bool, optional
            A hint that ``memory_mask`` is causal.

        Returns
        -------
        Tensor
            Same shape as ``tgt``.
        """
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz: int, device: DeviceLike = None,
                                        dtype: DTypeArg = None) -> Tensor:
        """Float causal mask: 0 on and below the diagonal, -inf above.

        Parameters
        ----------
        sz : int
            Sequence length.
        device : DeviceLike, optional
            The mask's device.
        dtype : dtype, optional
            The mask's dtype (default: the default dtype).

        Returns
        -------
        Tensor
            ``(sz, sz)``.
        """
        return _causal_mask(sz, dtype, device)
