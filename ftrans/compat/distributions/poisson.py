"""``torch.distributions.poisson`` (the module PyTorch defines ``Poisson`` in)."""
from .discrete import Poisson

__all__ = ["Poisson"]
