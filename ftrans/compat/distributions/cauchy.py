"""``torch.distributions.cauchy`` (the module PyTorch defines ``Cauchy`` in)."""
from .continuous import Cauchy

__all__ = ["Cauchy"]
