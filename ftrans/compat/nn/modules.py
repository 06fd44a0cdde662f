"""``torch.nn.modules``: the module classes under the names user code imports
(``from torch.nn.modules import Module``; ``torch.nn.modules.loss._Loss`` ...)."""
from .module import Module  # noqa: F401
from . import module  # noqa: F401  (torch.nn.modules.module)
from .container import *  # noqa: F401,F403
from .layers import *  # noqa: F401,F403
from .activation import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .loss import _Loss, _WeightedLoss  # noqa: F401
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .layers import _ConvNd  # noqa: F401
from .layers import _BatchNorm  # noqa: F401
