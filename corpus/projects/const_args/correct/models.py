import torch
from torch import nn


class Classifier(nn.Module):
    def __init__(self, dim=32, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(64, classes)

    def forward(self, x):
        return self.head(self.body(x))
