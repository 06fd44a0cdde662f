"""``torch.distributions.binomial`` (the module PyTorch defines ``Binomial`` in)."""
from .discrete import Binomial

__all__ = ["Binomial"]
