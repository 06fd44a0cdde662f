"""Activation modules and ``MultiheadAttention`` (``torch.nn.modules.activation``)."""
from __future__ import annotations

import ftrans.compat as torch
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter
from .layers import NonDynamicallyQuantizableLinear

__all__ = ["ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softplus",
           "Softmax", "LogSoftmax", "LogSigmoid", "MultiheadAttention", "ReLU6", "Hardtanh",
           "PReLU", "SELU", "CELU", "Mish", "Hardsigmoid", "Hardswish", "Softsign",
           "Tanhshrink", "Threshold", "Softmin"]


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class LeakyReLU(Module):
    def __init__(self, negative_slope=1e-2, inplace=False):
        super().__init__()
        self.negative_slope = negative_slope
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.leaky_relu(input, self.negative_slope, self.inplace)

    def extra_repr(self):
        return f"negative_slope={self.negative_slope}" + (", inplace=True" if self.inplace else "")


class ELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.elu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):  # noqa: A002
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.silu(input, inplace=self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class Sigmoid(Module):
    def forward(self, input):  # noqa: A002
        return torch.sigmoid(input)


class Tanh(Module):
    def forward(self, input):  # noqa: A002
        return torch.tanh(input)


class LogSigmoid(Module):
    def forward(self, input):  # noqa: A002
        return F.logsigmoid(input)


class Softplus(Module):
    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold

    def forward(self, input):  # noqa: A002
        return F.softplus(input, self.beta, self.threshold)

    def extra_repr(self):
        return f"beta={self.beta}, threshold={self.threshold}"


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):  # noqa: A002
        return F.softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    def forward(self, input):  # noqa: A002
        return F.log_softmax(input, self.dim)


class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val = min_val
        self.max_val = max_val
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return (f"min_val={self.min_val}, max_val={self.max_val}"
                + (", inplace=True" if self.inplace else ""))


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class PReLU(Module):
    """``max(0, x) + a * min(0, x)`` with a learnable ``weight`` (``num_parameters``
    entries, initialized to ``init``)."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.init = init
        self.weight = Parameter(torch.full((num_parameters,), float(init), dtype=dtype))

    def reset_parameters(self):
        init.constant_(self.weight, self.init)

    def forward(self, input):  # noqa: A002
        return F.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


def _simple(name, fn, *, inplace=True, show_inplace=True):
    """An activation module without parameters applying ``fn(input[, inplace])``."""
    def __init__(self, inplace=False):
        Module.__init__(self)
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return fn(input, inplace=self.inplace) if inplace else fn(input)

    def extra_repr(self):
        return "inplace=True" if show_inplace and getattr(self, "inplace", False) else ""
    ns = {"forward": forward, "extra_repr": extra_repr, "__module__": __name__}
    if inplace:
        ns["__init__"] = __init__
    return type(name, (Module,), ns)


SELU = _simple("SELU", F.selu)
Mish = _simple("Mish", F.mish)
Hardsigmoid = _simple("Hardsigmoid", F.hardsigmoid, show_inplace=False)
Hardswish = _simple("Hardswish", F.hardswish, show_inplace=False)
Softsign = _simple("Softsign", F.softsign, inplace=False)
Tanhshrink = _simple("Tanhshrink", F.tanhshrink, inplace=False)


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha = alpha
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class Threshold(Module):
    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold = threshold
        self.value = value
        self.inplace = inplace

    def forward(self, input):  # noqa: A002
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return (f"threshold={self.threshold}, value={self.value}"
                + (", inplace=True" if self.inplace else ""))


class Softmin(Softmax):
    def forward(self, input):  # noqa: A002
        return F.softmin(input, self.dim)


class MultiheadAttention(Module):
    """Multi-head attention (Vaswani et al. 2017), PyTorch's parametrization:
    ``in_proj_weight (3E, E)`` (Xavier-uniform), ``in_proj_bias (3E,)`` (zeros) and
    ``out_proj`` a Linear(E, E) with zero bias; separate ``q/k/v_proj_weight`` when
    ``kdim``/``vdim`` differ from ``embed_dim``.  ``forward(query, key, value,
    key_padding_mask, need_weights, attn_mask, average_attn_weights, is_causal)``
    returns ``(output, weights)``; ``batch_first`` takes ``(N, L, E)``."""

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
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

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
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
