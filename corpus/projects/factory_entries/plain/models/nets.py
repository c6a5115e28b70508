import torch.nn as nn


class Net(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.conv = nn.Conv2d(3, width, 3, padding=1)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(width, 10)

    def forward(self, x):
        return self.head(self.pool(self.conv(x)).flatten(1))


def tiny():
    return Net(8)


def wide():
    model = Net(64)
    return model
