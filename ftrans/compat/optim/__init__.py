"""``ftrans.compat.optim``: PyTorch's optimizers and learning-rate schedulers.

Optimizers take an iterable of leaf compat Tensors (or parameter-group dicts) -- no
``nn.Module`` is needed -- and update them in place, under ``no_grad``, with
:mod:`ftrans.optim`'s transformations, which follow the pseudo-code of PyTorch's
documentation so that parameter trajectories match ``torch.optim``'s.
"""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .lbfgs import LBFGS
from . import lr_scheduler

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "LBFGS",
           "lr_scheduler"]
