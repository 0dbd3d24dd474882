"""torchcopylint: find mistakes in how PyTorch tensors are copied, detached and written in place."""

__version__ = "0.1.0"
