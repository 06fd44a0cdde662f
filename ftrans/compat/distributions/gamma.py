"""``torch.distributions.gamma`` (the module PyTorch defines ``Gamma`` in)."""
from .continuous import Gamma

__all__ = ["Gamma"]
