"""``torch.distributions.beta`` (the module PyTorch defines ``Beta`` in)."""
from .continuous import Beta

__all__ = ["Beta"]
