"""Recurrent layers ``RNN``, ``LSTM``, ``GRU`` and their cells (``torch.nn.modules.rnn``).

Parameters per layer and direction are PyTorch's ``weight_ih_l{k}[_reverse]``
``(gates * hidden, in)``, ``weight_hh_l{k}`` ``(gates * hidden, hidden)``, ``bias_ih_l{k}``
and ``bias_hh_l{k}``, all from ``U(-1/sqrt(hidden), 1/sqrt(hidden))``; the gate order is
PyTorch's (LSTM: input, forget, cell, output; GRU: reset, update, new) and so are the
update formulas of the documentation, e.g. for the GRU
``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``.
The input projections of a whole sequence are one matrix product; the recurrence is a
Python loop over time steps of compat operations.
"""
from __future__ import annotations

import math
from typing import Any, cast

import ftrans.compat as torch
from ..types import DTypeArg, DeviceLike, Tensor
from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter

__all__ = ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def _cell_step(mode: str, xw: Tensor, h: Tensor, c: Tensor | None, w_hh: Tensor,
               b_hh: Tensor | None) -> tuple[Tensor, Tensor | None]:
    """One step: ``xw`` the input projection (with ``b_ih``); returns ``(h, c)``."""
    hw = F.linear(h, w_hh, b_hh)
    if mode == "LSTM":
        i, f, g, o = (xw + hw).chunk(4, -1)
        i, f, g, o = torch.sigmoid(i), torch.sigmoid(f), torch.tanh(g), torch.sigmoid(o)
        c = f * c + i * g
        return o * torch.tanh(c), c
    if mode == "GRU":
        xr, xz, xn = xw.chunk(3, -1)
        hr, hz, hn = hw.chunk(3, -1)
        r = torch.sigmoid(xr + hr)
        z = torch.sigmoid(xz + hz)
        n = torch.tanh(xn + r * hn)
        return (1.0 - z) * n + z * h, None
    pre = xw + hw
    return (torch.tanh(pre) if mode == "RNN_TANH" else torch.relu(pre)), None


class RNNBase(Module):
    """The multi-layer recurrent layers' base (``torch.nn.RNNBase``).

    Parameters per layer and direction are PyTorch's ``weight_ih_l{k}[_reverse]``,
    ``weight_hh_l{k}``, ``bias_ih_l{k}`` and ``bias_hh_l{k}``, all from
    ``U(-1/sqrt(hidden), 1/sqrt(hidden))``.

    Parameters
    ----------
    mode : str
        ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
    input_size : int
        Features of the input.
    hidden_size : int
        Features of the hidden state.
    num_layers : int, optional
        Stacked layers (default 1).
    bias : bool, optional
        Learn the biases (default True).
    batch_first : bool, optional
        Inputs and outputs are ``(N, L, *)`` instead of ``(L, N, *)`` (default False).
    dropout : float, optional
        Dropout on the outputs of every layer but the last, in training (default 0).
    bidirectional : bool, optional
        Also run each layer backwards in time (default False).
    proj_size : int, optional
        Not supported (must be 0).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    ValueError
        For a bad ``dropout``, ``hidden_size`` or ``num_layers``.
    NotImplementedError
        For ``proj_size``.
    """

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        super().__init__()
        if proj_size:
            raise NotImplementedError("LSTM proj_size is not supported by ftrans.compat")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or \
                isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be a positive integer")
        if not isinstance(num_layers, int) or num_layers <= 0:
            raise ValueError("num_layers must be a positive integer")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        nd = 2 if bidirectional else 1
        gate = _GATES[mode] * hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for direction in range(nd):
                lin = input_size if layer == 0 else hidden_size * nd
                sfx = "_reverse" if direction == 1 else ""
                names = [f"weight_ih_l{layer}{sfx}", f"weight_hh_l{layer}{sfx}"]
                shapes: list[tuple[int, ...]] = [(gate, lin), (gate, hidden_size)]
                if bias:
                    names += [f"bias_ih_l{layer}{sfx}", f"bias_hh_l{layer}{sfx}"]
                    shapes += [(gate,), (gate,)]
                for n, s in zip(names, shapes):
                    setattr(self, n, Parameter(torch.empty(s, dtype=dtype)))
                self._flat_weights_names.extend(names)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    @property
    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters per layer and direction: ``[w_ih, w_hh(, b_ih, b_hh)]`` each."""
        return [[getattr(self, n) for n in self._flat_weights_names[i:i + (4 if self.bias else 2)]]
                for i in range(0, len(self._flat_weights_names), 4 if self.bias else 2)]

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def _weights(self, layer: int,
                 direction: int) -> tuple[Tensor, Tensor, Tensor | None, Tensor | None]:
        sfx = "_reverse" if direction == 1 else ""
        g = lambda n: getattr(self, f"{n}_l{layer}{sfx}")  # noqa: E731
        if self.bias:
            return g("weight_ih"), g("weight_hh"), g("bias_ih"), g("bias_hh")
        return g("weight_ih"), g("weight_hh"), None, None

    def forward(self, input: Tensor, hx: Tensor | tuple[Tensor, Tensor] | None = None  # noqa: A002
                ) -> tuple[Tensor, Any]:
        """Run the layers over the sequence ``input``.

        Parameters
        ----------
        input : Tensor
            ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``) or unbatched ``(L, H_in)``.
        hx : Tensor or (Tensor, Tensor), optional
            Initial hidden state ``(num_layers * D, N, H)`` (LSTM: the pair ``(h_0, c_0)``);
            zeros by default.

        Returns
        -------
        output : Tensor
            ``(L, N, D * H)``: the last layer's hidden states at every step.
        h_n : Tensor or (Tensor, Tensor)
            ``(num_layers * D, N, H)`` final hidden states (LSTM: ``(h_n, c_n)``).

        Raises
        ------
        ValueError
            For an input that is not 2-d or 3-d.
        RuntimeError
            For a hidden state of the wrong shape.
        """
        lstm = self.mode == "LSTM"
        batched = input.dim() == 3
        if input.dim() not in (2, 3):
            raise ValueError(f"{type(self).__name__}: Expected input to be 2D or 3D, got "
                             f"{input.dim()}D tensor instead")
        x = input if batched else input.unsqueeze(1)
        if self.batch_first and batched:
            x = x.transpose(0, 1)
        T, N = x.shape[0], x.shape[1]
        nd = 2 if self.bidirectional else 1
        H = self.hidden_size
        if hx is None:
            h0 = torch.zeros(self.num_layers * nd, N, H, dtype=x.dtype, device=x.device)
            c0 = (torch.zeros(self.num_layers * nd, N, H, dtype=x.dtype, device=x.device)
                  if lstm else None)
        else:
            if lstm:
                h0, c0 = hx
            else:
                h0, c0 = cast(Tensor, hx), None     # (a tensor: RNN and GRU state)
            if not batched:
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            if tuple(h0.shape) != (self.num_layers * nd, N, H):
                raise RuntimeError(f"Expected hidden size {(self.num_layers * nd, N, H)}, got "
                                   f"{list(h0.shape)}")
        hs: list[Tensor] = []
        cs: list[Tensor] = []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(nd):
                w_ih, w_hh, b_ih, b_hh = self._weights(layer, d)
                xw = F.linear(layer_in, w_ih, b_ih)            # (T, N, gates * H)
                k = layer * nd + d
                h = h0[k]
                c = c0[k] if lstm else None  # type: ignore[index]  # c0 is set for LSTM
                steps: list[Any] = [None] * T
                order = range(T - 1, -1, -1) if d == 1 else range(T)
                for t in order:
                    h, c = _cell_step(self.mode, xw[t], h, c, w_hh, b_hh)
                    steps[t] = h
                outs.append(torch.stack(steps) if T else
                            torch.zeros(0, N, H, dtype=x.dtype, device=x.device))
                hs.append(h)
                if lstm:
                    cs.append(cast(Tensor, c))  # (set for LSTM)
            layer_in = outs[0] if nd == 1 else torch.cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_in = F.dropout(layer_in, self.dropout, True)
        out = layer_in
        h_n = torch.stack(hs)
        c_n = torch.stack(cs) if lstm else None
        if self.batch_first and batched:
            out = out.transpose(0, 1)
        if not batched:
            out = out.squeeze(1)
            h_n = h_n.squeeze(1)
            c_n = c_n.squeeze(1) if lstm else None  # type: ignore[union-attr]  # set for LSTM
        return (out, (h_n, c_n)) if lstm else (out, h_n)


class RNN(RNNBase):
    """Elman RNN ``h_t = tanh(W_ih x_t + b_ih + W_hh h_{t-1} + b_hh)`` (``torch.nn.RNN``).

    Parameters
    ----------
    *args, **kwargs : Any
        ``input_size`` (int), ``hidden_size`` (int), ``num_layers`` (int, default 1),
        ``nonlinearity``
        (``'tanh'``, default, or ``'relu'``; the fourth positional argument),
        ``bias`` (bool, default True), ``batch_first`` (bool, default False: inputs are
        ``(L, N, H_in)``), ``dropout`` (float, on the outputs of every layer but the last in
        training; default 0), ``bidirectional`` (bool, default False), ``proj_size`` (0 only),
        ``device``, ``dtype``: ``RNNBase``'s parameters after ``mode``.

    Raises
    ------
    ValueError
        For a bad ``dropout``, ``hidden_size`` or ``num_layers`` or an unknown ``nonlinearity``.
    NotImplementedError
        For ``proj_size``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        nonlinearity = kwargs.pop("nonlinearity", "tanh")
        if len(args) > 3:
            nonlinearity = args[3]
            args = args[:3] + args[4:]
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.__dict__["nonlinearity"] = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)
        self.nonlinearity = nonlinearity


class LSTM(RNNBase):
    """Long short-term memory (``torch.nn.LSTM``).

    PyTorch's gate order: input, forget, cell, output.

    Parameters
    ----------
    *args, **kwargs : Any
        ``input_size`` (int), ``hidden_size`` (int), ``num_layers`` (int, default 1),
        ``bias`` (bool, default True), ``batch_first`` (bool, default False: inputs are
        ``(L, N, H_in)``), ``dropout`` (float, on the outputs of every layer but the last in
        training; default 0), ``bidirectional`` (bool, default False), ``proj_size`` (0 only),
        ``device``, ``dtype``: ``RNNBase``'s parameters after ``mode``.

    Raises
    ------
    ValueError
        For a bad ``dropout``, ``hidden_size`` or ``num_layers``.
    NotImplementedError
        For ``proj_size``.

    Notes
    -----
    Hochreiter and Schmidhuber (1997), "Long Short-Term Memory".
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gated recurrent unit (``torch.nn.GRU``), PyTorch's formulation.

    ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``, ``h' = (1 - z) * n + z * h``; gates in the
    order reset, update, new.

    Parameters
    ----------
    *args, **kwargs : Any
        ``input_size`` (int), ``hidden_size`` (int), ``num_layers`` (int, default 1),
        ``bias`` (bool, default True), ``batch_first`` (bool, default False: inputs are
        ``(L, N, H_in)``), ``dropout`` (float, on the outputs of every layer but the last in
        training; default 0), ``bidirectional`` (bool, default False), ``proj_size`` (0 only),
        ``device``, ``dtype``: ``RNNBase``'s parameters after ``mode``.

    Raises
    ------
    ValueError
        For a bad ``dropout``, ``hidden_size`` or ``num_layers``.
    NotImplementedError
        For ``proj_size``.

    Notes
    -----
    Cho et al. (2014), "Learning Phrase Representations using RNN Encoder-Decoder".
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", *args, **kwargs)


class RNNCellBase(Module):
    """The recurrent cells' base (``torch.nn.RNNCellBase``).

    ``weight_ih (num_chunks * hidden, input)``, ``weight_hh (num_chunks * hidden, hidden)`` and the
    biases, all from ``U(-1/sqrt(hidden), 1/sqrt(hidden))``.

    Parameters
    ----------
    input_size : int
        Features of the input.
    hidden_size : int
        Features of the hidden state.
    bias : bool, optional
        Learn ``bias_ih`` and ``bias_hh`` (default True).
    num_chunks : int
        Gates per cell (1, 4 for LSTM, 3 for GRU).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """

    _mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, num_chunks: int = 1,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        self.weight_ih = Parameter(torch.empty((num_chunks * hidden_size, input_size),
                                               dtype=dtype))
        self.weight_hh = Parameter(torch.empty((num_chunks * hidden_size, hidden_size),
                                               dtype=dtype))
        if bias:
            self.bias_ih = Parameter(torch.empty(num_chunks * hidden_size, dtype=dtype))
            self.bias_hh = Parameter(torch.empty(num_chunks * hidden_size, dtype=dtype))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Redraw every parameter from ``U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))``.
        """
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def extra_repr(self) -> str:
        """The constructor settings shown in ``repr(module)``.

        Returns
        -------
        str
            The settings, comma-separated.
        """
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def forward(self, input: Tensor, hx: Tensor | tuple[Tensor, Tensor] | None = None  # noqa: A002
                ) -> Any:
        """One step of the cell.

        Parameters
        ----------
        input : Tensor
            ``(N, input_size)`` or ``(input_size,)``.
        hx : Tensor or (Tensor, Tensor), optional
            ``(N, hidden_size)`` hidden state (LSTMCell: ``(h, c)``); zeros by default.

        Returns
        -------
        Tensor or (Tensor, Tensor)
            The next hidden state (LSTMCell: ``(h', c')``).

        Raises
        ------
        ValueError
            For an input that is not 1-d or 2-d.
        """
        if input.dim() not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.dim()}D instead")
        batched = input.dim() == 2
        x = input if batched else input.unsqueeze(0)
        N = x.shape[0]
        lstm = self._mode == "LSTM"
        if hx is None:
            z = torch.zeros(N, self.hidden_size, dtype=x.dtype, device=x.device)
            h, c = z, (z if lstm else None)
        elif lstm:
            h, c = hx
            if not batched:
                h, c = h.unsqueeze(0), c.unsqueeze(0)
        else:
            # (hx is a Tensor here)
            hx_t = cast(Tensor, hx)
            h, c = (hx_t if batched else hx_t.unsqueeze(0)), None
        xw = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _cell_step(self._mode, xw, h, c, self.weight_hh, self.bias_hh)
        if not batched:
            h = h.squeeze(0)
            c = c.squeeze(0) if lstm else None  # type: ignore[union-attr]  # set for LSTM
        return (h, c) if lstm else h


class RNNCell(RNNCellBase):
    """An Elman RNN cell ``h' = tanh(W_ih x + b_ih + W_hh h + b_hh)`` (``torch.nn.RNNCell``).

    Parameters
    ----------
    input_size : int
        Features of the input.
    hidden_size : int
        Features of the hidden state.
    bias : bool, optional
        Learn ``bias_ih`` and ``bias_hh`` (default True).
    nonlinearity : str, optional
        ``'tanh'`` (default) or ``'relu'``.
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).

    Raises
    ------
    ValueError
        For an unknown ``nonlinearity``.
    """

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: DeviceLike = None,
                 dtype: DTypeArg = None) -> None:
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        self._mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"


class LSTMCell(RNNCellBase):
    """A long short-term memory cell (``torch.nn.LSTMCell``).

    Parameters
    ----------
    input_size : int
        Features of the input.
    hidden_size : int
        Features of the hidden state.
    bias : bool, optional
        Learn ``bias_ih`` and ``bias_hh`` (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """

    _mode = "LSTM"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)


class GRUCell(RNNCellBase):
    """A gated recurrent unit cell (``torch.nn.GRUCell``).

    Parameters
    ----------
    input_size : int
        Features of the input.
    hidden_size : int
        Features of the hidden state.
    bias : bool, optional
        Learn ``bias_ih`` and ``bias_hh`` (default True).
    device : DeviceLike, optional
        Where the parameters live (checked by ``torch.empty``; the CPU).
    dtype : dtype, optional
        The parameters' dtype (default: the default dtype).
    """

    _mode = "GRU"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 device: DeviceLike = None, dtype: DTypeArg = None) -> None:
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)
