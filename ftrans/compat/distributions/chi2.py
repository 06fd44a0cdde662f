"""``torch.distributions.chi2`` (the module PyTorch defines ``Chi2`` in)."""
from .continuous import Chi2

__all__ = ["Chi2"]
