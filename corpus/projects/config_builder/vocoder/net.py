import torch
from torch import nn

from vocoder.layers import embedding


class Vocoder(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, 3, padding=1)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.conv(x))

    def generate(self, x, steps):
        frames = []
        for _ in range(steps):
            x = self.forward(x)
            frames.append(x)
        return torch.stack(frames)


class Speaker(nn.Module):
    def __init__(self, speakers, width=16):
        super().__init__()
        self.table = embedding(speakers, width)

    def forward(self, ids):
        return self.table(ids)

    def voice(self, ids):
        return self.table(ids).mean(dim=0)
