import torch
import torch.nn as nn


class NoisyGate(nn.Module):
    """Multiplies its input by a learned random mask, then runs the layer it
    is handed on the masked input and returns that layer's output."""

    def __init__(self, keep=0.9):
        super().__init__()
        self.logit = nn.Parameter(torch.tensor(float(keep)).logit())
        self.penalty = 0.0

    def forward(self, x: torch.Tensor, layer: nn.Module) -> torch.Tensor:
        keep = torch.sigmoid(self.logit)
        mask = (torch.rand_like(x) < keep).float()
        out = layer(x * mask / keep)
        self.penalty = keep * (1 - keep)
        return out
