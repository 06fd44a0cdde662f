"""``torch.distributions.geometric`` (the module PyTorch defines ``Geometric`` in)."""
from .discrete import Geometric

__all__ = ["Geometric"]
