"""``torch.distributions.normal`` (the module PyTorch defines ``Normal`` in)."""
from .continuous import Normal

__all__ = ["Normal"]
