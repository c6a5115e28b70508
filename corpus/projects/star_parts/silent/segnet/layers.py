import torch
import torch.nn as nn
import torch.nn.functional as F


class conv_bn(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.body(x)


class head(nn.Module):
    def __init__(self, cin, classes):
        super().__init__()
        self.proj = nn.Conv2d(cin, classes, 1)

    def forward(self, x):
        return torch.sigmoid(self.proj(F.relu(x)))
