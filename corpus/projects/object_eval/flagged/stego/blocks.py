import torch.nn as nn


class Critic(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = nn.Conv2d(3, channels, 3, padding=1)
        self.bn = nn.BatchNorm2d(channels)
        self.head = nn.Linear(channels, 1)

    def forward(self, x):
        h = self.bn(self.conv(x)).relu()
        return self.head(h.mean(dim=(2, 3)))
