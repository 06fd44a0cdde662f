"""``torch.distributions.exponential`` (the module PyTorch defines ``Exponential`` in)."""
from .continuous import Exponential

__all__ = ["Exponential"]
