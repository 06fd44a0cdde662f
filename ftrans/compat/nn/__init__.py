"""``torch.nn`` for ``ftrans.compat``: Module, Parameter, containers, layers, losses,
``nn.functional``, ``nn.init`` and ``nn.utils``, written against the public compat API.

>>> import ftrans.compat as torch
>>> from ftrans.compat import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
>>> loss = nn.CrossEntropyLoss()(model(torch.randn(5, 4)), torch.tensor([0, 2, 1, 1, 0]))
>>> loss.backward()
>>> model[0].weight.grad.shape
torch.Size([8, 4])
"""
from .parameter import Parameter, Buffer
from .module import Module
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .layers import (Identity, Linear, Bilinear, Flatten, Unflatten, Embedding, Conv1d, Conv2d,
                     Conv3d, ConvTranspose1d, ConvTranspose2d, MaxPool1d, MaxPool2d, AvgPool1d,
                     AvgPool2d, AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool1d,
                     AdaptiveMaxPool2d, BatchNorm1d, BatchNorm2d,
                     LayerNorm, GroupNorm, Dropout, Dropout1d, Dropout2d, InstanceNorm1d,
                     InstanceNorm2d, ZeroPad2d, ConstantPad1d, ConstantPad2d, Upsample,
                     CosineSimilarity, PairwiseDistance)
from .activation import (ReLU, LeakyReLU, ELU, GELU, SiLU, Sigmoid, Tanh, Softplus, Softmax,
                         LogSoftmax, LogSigmoid, MultiheadAttention, ReLU6, Hardtanh, PReLU,
                         SELU, CELU, Mish, Hardsigmoid, Hardswish, Softsign, Tanhshrink,
                         Threshold, Softmin)
from .loss import (MSELoss, L1Loss, SmoothL1Loss, HuberLoss, CrossEntropyLoss, NLLLoss, BCELoss,
                   BCEWithLogitsLoss, KLDivLoss)
from .layers2 import *  # noqa: F401,F403
from .loss2 import *  # noqa: F401,F403
from . import layers2 as _layers2, loss2 as _loss2
from .rnn import RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell, RNNBase, RNNCellBase
from .transformer import (TransformerEncoderLayer, TransformerDecoderLayer, TransformerEncoder,
                          TransformerDecoder, Transformer)
from .parallel import DataParallel
from . import functional, init, utils, parallel  # noqa: F401
import ftrans.compat as _torch
for _n, _f in functional.TOPLEVEL.items():   # torch.grid_sampler_2d, torch.native_* ...
    if not hasattr(_torch, _n):
        setattr(_torch, _n, _f)
del _n, _f
from . import modules  # noqa: F401

__all__ = [
    "Parameter", "Buffer", "Module", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
    "ParameterDict", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Embedding",
    "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d",
    "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d",
    "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm", "Dropout", "Dropout1d", "Dropout2d",
    "InstanceNorm1d", "InstanceNorm2d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d",
    "Upsample", "CosineSimilarity", "PairwiseDistance",
    "ReLU", "LeakyReLU", "ELU", "GELU", "SiLU", "Sigmoid", "Tanh", "Softplus", "Softmax",
    "LogSoftmax", "LogSigmoid", "MultiheadAttention", "ReLU6", "Hardtanh", "PReLU", "SELU",
    "CELU", "Mish", "Hardsigmoid", "Hardswish", "Softsign", "Tanhshrink", "Threshold",
    "Softmin", "MSELoss", "L1Loss", "SmoothL1Loss",
    "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss", "KLDivLoss",
    "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell", "RNNBase", "RNNCellBase",
    "TransformerEncoderLayer", "TransformerDecoderLayer", "TransformerEncoder",
    "TransformerDecoder", "Transformer", "functional", "init", "utils", "DataParallel",
    "parallel",
] + _layers2.__all__ + _loss2.__all__
