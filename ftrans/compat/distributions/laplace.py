"""``torch.distributions.laplace`` (the module PyTorch defines ``Laplace`` in)."""
from .continuous import Laplace

__all__ = ["Laplace"]
