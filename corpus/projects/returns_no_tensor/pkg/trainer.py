import torch
from torch import nn


class ChunkedTrainer(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x, return_images=False):
        total = 0.
        images = []
        for chunk in x.chunk(4):
            out = self.model(chunk)
            loss = out.pow(2).mean()
            total += loss.item() / 4
            images.append(out.detach())
            loss.backward()
        if return_images:
            return total, torch.stack(images)
        return total


class TensorTrainer(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        loss = self.model(x).pow(2).mean()
        loss.backward()
        return loss
