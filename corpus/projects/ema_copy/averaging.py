from copy import deepcopy

import torch
import torch.nn as nn


class WeightAverage(nn.Module):
    """A moving average of a model's weights, kept in a copy of the model."""

    def __init__(self, model, decay=0.999, device=None):
        super().__init__()
        self.module = deepcopy(model)
        self.module.eval()
        self.decay = decay
        if device is not None and next(model.parameters()).device != device:
            self.module.to(device)

    @torch.no_grad()
    def update(self, model):
        for avg, cur in zip(self.module.parameters(), model.parameters()):
            avg.mul_(self.decay).add_(cur.detach(), alpha=1 - self.decay)

    def forward(self, x):
        return self.module(x)


class SharedView(nn.Module):
    """Wraps the model itself: switching it to eval switches the model."""

    def __init__(self, model):
        super().__init__()
        self.module = model

    def forward(self, x):
        return self.module(x)
