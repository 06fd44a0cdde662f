"""``torch.distributions.dirichlet`` (the module PyTorch defines ``Dirichlet`` in)."""
from .continuous import Dirichlet

__all__ = ["Dirichlet"]
