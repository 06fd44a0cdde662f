"""``torch.distributions.one_hot_categorical`` (where PyTorch defines ``OneHotCategorical``)."""
from .discrete import OneHotCategorical

__all__ = ["OneHotCategorical"]
