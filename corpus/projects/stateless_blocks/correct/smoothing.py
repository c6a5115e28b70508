import torch
import torch.nn as nn


class RunningMean(nn.Module):
    """A moving average over time: an average pool, padded at both ends."""

    def __init__(self, window, step):
        super().__init__()
        self.window = window
        self.pool = nn.AvgPool1d(kernel_size=window, stride=step, padding=0)

    def forward(self, x):
        half = (self.window - 1) // 2
        head = x[:, :1, :].repeat(1, half, 1)
        tail = x[:, -1:, :].repeat(1, half, 1)
        padded = torch.cat([head, x, tail], dim=1)
        return self.pool(padded.permute(0, 2, 1)).permute(0, 2, 1)


class TrendSplit(nn.Module):
    """Splits a series into its trend and what is left."""

    def __init__(self, window):
        super().__init__()
        self.trend = RunningMean(window, step=1)

    def forward(self, x):
        trend = self.trend(x)
        return x - trend, trend
