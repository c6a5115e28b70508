import torch.nn as nn


class Classifier(nn.Module):
    def __init__(self, in_dim, hidden, classes, drop=0.3):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_dim, hidden),
            nn.BatchNorm1d(hidden),
            nn.ReLU(),
            nn.Dropout(drop),
        )
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(self.body(x))
