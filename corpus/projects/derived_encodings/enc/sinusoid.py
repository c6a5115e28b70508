import math

import torch
from torch import nn


class Sinusoid(nn.Module):
    """Adds a fixed table of sines and cosines, then drops out."""

    def __init__(self, d_model, dropout_rate, max_len=4000):
        super().__init__()
        self.d_model = d_model
        self.scale = math.sqrt(self.d_model)
        self.drop = nn.Dropout(p=dropout_rate)
        self.max_len = max_len
        steps = torch.arange(0, max_len, dtype=torch.float32).unsqueeze(1)
        freqs = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * -(math.log(1e4) / d_model))
        table = torch.zeros(max_len, d_model)
        table[:, 0::2] = torch.sin(steps * freqs)
        table[:, 1::2] = torch.cos(steps * freqs)
        self.register_buffer("table", table.unsqueeze(0))

    def forward(self, x):
        return self.drop(x * self.scale + self.table[:, : x.size(1)])


class Switchable(nn.Module):
    """A projection that a flag of the constructor turns into a no-op."""

    def __init__(self, dim, project):
        super().__init__()
        self.proj = nn.Linear(dim, dim) if project else nn.Identity()

    def forward(self, x):
        return self.proj(x)
