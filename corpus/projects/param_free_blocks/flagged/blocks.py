import torch.nn as nn


class DropPath(nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        return x * (x.new_empty(x.shape[0], 1).bernoulli_(1 - self.p) / (1 - self.p))


class Smooth(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AvgPool1d(3, stride=1, padding=1)

    def forward(self, x):
        return self.pool(x)


class ScaledDropPath(DropPath):
    def __init__(self, p=0.1):
        super().__init__(p)
        self.gamma = nn.Parameter(x_init())

    def forward(self, x):
        return self.gamma * super().forward(x)


def x_init():
    import torch

    return torch.ones(1)
