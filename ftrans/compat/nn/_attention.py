"""``MultiheadAttention`` (``torch.nn.modules.activation``'s; re-exported by
:mod:`~ftrans.compat.nn.activation`)."""
from __future__ import annotations

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .layers import NonDynamicallyQuantizableLinear

__all__ = ["MultiheadAttention"]


class MultiheadAttention(Module):
    """Multi-head attention (``torch.nn.MultiheadAttention``), PyTorch's parametrization.

    ``in_proj_weight (3E, E)`` (Xavier-uniform), ``in_proj_bias (3E,)`` (zeros) and
    ``out_proj`` a Linear(E, E) with zero bias; separate ``q/k/v_proj_weight`` when
    ``kdim``/``vdim`` differ from ``embed_dim``.

    Parameters
    ----------
    embed_dim : int
        Model dimension E.
    num_heads : int
        Number of heads; must divide ``embed_dim``.
    dropout : float, optional
        Dropout probability on the attention weights in training (default 0.0).
    bias : bool, optional
        Learn input and output projection biases (default True).
    add_bias_kv : bool, optional
        Not supported (must be False).
    add_zero_attn : bool, optional
        Not supported (must be False).
    kdim : int, optional
        Key feature size (default ``embed_dim``).
    vdim : int, optional
        Value feature size (default ``embed_dim``).
    batch_first : bool, optional
        Inputs and output are ``(N, L, E)`` instead of ``(L, N, E)`` (default False).
    device : DeviceLike, optional
        Accepted for torch's signature; compat parameters live on the CPU.
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    ValueError
        If ``embed_dim`` or ``num_heads`` is not positive.
    AssertionError
        If ``num_heads`` does not divide ``embed_dim``.
    NotImplementedError
        For ``add_bias_kv`` or ``add_zero_attn``.

    Notes
    -----
    Vaswani et al. (2017), "Attention Is All You Need".
    """

    def __init__(self, embed_dim: int, num_heads: int, dropout: float = 0.0, bias: bool = True,
                 add_bias_kv: bool = False, add_zero_attn: bool = False, kdim: int | None = None,
                 vdim: int | None = None, batch_first: bool = False, device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("MultiheadAttention: add_bias_kv/add_zero_attn are not "
                                      "supported by ftrans.compat")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = Parameter(torch.empty((embed_dim, embed_dim), dtype=dtype))
            self.k_proj_weight = Parameter(torch.empty((embed_dim, self.kdim), dtype=dtype))
            self.v_proj_weight = Parameter(torch.empty((embed_dim, self.vdim), dtype=dtype))
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = Parameter(torch.empty((3 * embed_dim, embed_dim), dtype=dtype))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(torch.empty(3 * embed_dim, dtype=dtype))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias,
                                                        dtype=dtype)
        self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query: Tensor, key: Tensor, value: Tensor,
                key_padding_mask: Tensor | None = None, need_weights: bool = True,
                attn_mask: Tensor | None = None, average_attn_weights: bool = True,
                is_causal: bool = False) -> tuple[Tensor, Tensor | None]:
        """Attend from ``query`` to ``key``/``value`` (``F.multi_head_attention_forward``).

        Parameters
        ----------
        query : Tensor
            ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``.
        key : Tensor
            ``(S, N, kdim)`` (``(N, S, kdim)`` with ``batch_first``) or ``(S, kdim)``.
        value : Tensor
            ``(S, N, vdim)`` (``(N, S, vdim)`` with ``batch_first``) or ``(S, vdim)``.
        key_padding_mask : Tensor, optional
            ``(N, S)``: True (bool) or the added float marks keys to ignore.
        need_weights : bool, optional
            Also return the attention weights (default True).
        attn_mask : Tensor, optional
            ``(L, S)`` or ``(N * num_heads, L, S)`` mask, bool (True: masked) or added float.
        average_attn_weights : bool, optional
            Average the returned weights over the heads (default True).
        is_causal : bool, optional
            A hint that ``attn_mask`` is the causal mask.

        Returns
        -------
        output : Tensor
            Same layout as ``query`` with ``E`` features.
        weights : Tensor or None
            ``(N, L, S)`` (``(N, num_heads, L, S)`` unaveraged), or None without ``need_weights``.
        """
        batched = query.dim() == 3
        if self.batch_first and batched:
            query, key, value = (t.transpose(1, 0) for t in (query, key, value))
        out, w = F.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and batched:
            out = out.transpose(1, 0)
        return out, w
