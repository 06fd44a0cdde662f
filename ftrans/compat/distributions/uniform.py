"""``torch.distributions.uniform`` (the module PyTorch defines ``Uniform`` in)."""
from .continuous import Uniform

__all__ = ["Uniform"]
