import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden, classes):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.body(x))
