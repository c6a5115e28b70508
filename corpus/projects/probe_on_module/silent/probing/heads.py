import torch.nn as nn


class LinearProbe(nn.Module):
    """A small classifier over frozen features that outputs logits."""

    def __init__(self, width, classes):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Linear(width, width),
            nn.ReLU(),
            nn.Linear(width, classes),
        )

    def forward(self, feats):
        return self.layers(feats)
