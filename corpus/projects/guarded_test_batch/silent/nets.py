import torch.nn as nn


class PointClassifier(nn.Module):
    """Shared per-point features, pooled, then a classifier; batch norm after
    each convolution."""

    def __init__(self, classes=16):
        super().__init__()
        self.feat = nn.Sequential(
            nn.Conv1d(3, 64, 1),
            nn.BatchNorm1d(64),
            nn.ReLU(),
            nn.Conv1d(64, 256, 1),
            nn.BatchNorm1d(256),
            nn.ReLU(),
        )
        self.head = nn.Linear(256, classes)

    def forward(self, pts):
        return self.head(self.feat(pts).max(dim=2).values)


class Generator(nn.Module):
    def __init__(self, width=128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(width, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 3 * 64))

    def forward(self, z):
        return self.body(z)
