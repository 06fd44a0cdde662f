"""``torch.distributions.bernoulli`` (the module PyTorch defines ``Bernoulli`` in)."""
from .discrete import Bernoulli

__all__ = ["Bernoulli"]
