"""``torch.distributions.log_normal`` (the module PyTorch defines ``LogNormal`` in)."""
from .continuous import LogNormal

__all__ = ["LogNormal"]
