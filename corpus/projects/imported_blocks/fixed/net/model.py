import torch.nn as nn

from .blocks import ResidualBlock
from .schedules import LinearWarmup


class Backbone(nn.Module):
    def __init__(self, channels=64, depth=4, classes=10):
        super().__init__()
        self.widths = [channels] * depth
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        # ok: TL214
        self.blocks = nn.ModuleList([ResidualBlock(channels) for _ in range(depth)])
        self.head = nn.Linear(channels, classes)
        # ok: TL214
        self.warmups = [LinearWarmup(100 * (i + 1)) for i in range(depth)]
        # ok: TL214
        self.ends = [self.blocks[0], self.blocks[-1]]

    def forward(self, x):
        x = self.stem(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x.mean(dim=(2, 3)))
