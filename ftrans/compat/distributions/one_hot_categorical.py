"""``torch.distributions.one_hot_categorical`` (the module PyTorch defines ``OneHotCategorical`` in)."""
from .discrete import OneHotCategorical

__all__ = ["OneHotCategorical"]
