"""A market indicator whose output starts with NaN (nothing to average before the window fills): the
copy before the out-of-place `clip` is redundant, and the outputs with and without it hold NaN in the
same places. Comparing them as unequal (NaN != NaN) refuted this true TCL001 (fresh89)."""

import torch


def relative_strength(prices: torch.Tensor, window: int = 3) -> torch.Tensor:
    result = torch.full_like(prices, fill_value=torch.nan)
    deltas = prices[1:] - prices[:-1]
    gains = deltas.clone().clip(min=0)  # expect: TCL001
    losses = (-deltas).clip(min=0)
    kernel = torch.ones(1, 1, window) / window
    average_gain = torch.conv1d(gains.view(1, 1, -1), kernel).flatten()
    average_loss = torch.conv1d(losses.view(1, 1, -1), kernel).flatten()
    result[window:] = 1 - 1 / (1 + average_gain / average_loss)
    return result


def run_example():
    prices = torch.rand(50)
    return relative_strength(prices, window=5)
