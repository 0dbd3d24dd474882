"""Reads a price series from a CSV file, scaled, with the scale it used."""

import numpy as np


def read_series(path, length):
    data = np.loadtxt(path, delimiter=",", skiprows=1)
    low, high = data.min(0), data.max(0)
    data = (data - low) / (high - low + 1e-7)
    return np.stack([data[i:i + length] for i in range(len(data) - length)]), (low, high)
