"""Trains on windows of the price series (the script's top level, no main guard)."""

import torch

from series_data import read_series
from series_trainer import SeriesTrainer

series, (low, high) = read_series("data/prices.csv", 24)
width = series[0].shape[1]
trainer = SeriesTrainer(width)
trainer.fit(torch.from_numpy(series).float())
