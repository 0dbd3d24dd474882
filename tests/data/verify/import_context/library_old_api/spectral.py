"""Frequency-domain helpers of the old API; nothing the gradient attack uses."""

from torch import rfft


def spectrum(x):
    return rfft(x, 2)
