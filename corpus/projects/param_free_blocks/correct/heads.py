import torch.nn as nn

from blocks import DropPath, Smooth


class StochasticDepth(DropPath):
    def __init__(self, p=0.1, scale=True):
        super().__init__(p)
        self.scale = scale


class SmoothDrop(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.drop = DropPath(p)
        self.smooth = Smooth()

    def forward(self, x):
        return self.drop(self.smooth(x))
