"""``torch.distributions.categorical`` (the module PyTorch defines ``Categorical`` in)."""
from .discrete import Categorical

__all__ = ["Categorical"]
