import torch
from torch import nn


class Quantizer(nn.Module):
    def __init__(self, levels, dim=None, learned_scale=False, trainable_codes=False):
        super().__init__()
        self.learned_scale = learned_scale
        if dim is not None:
            self.project_in = nn.Linear(dim, len(levels))
        else:
            self.project_in = nn.Identity()
        self.scale = nn.Linear(len(levels), len(levels)) if self.learned_scale else nn.Identity()
        self.codes = nn.Parameter(torch.tensor(levels, dtype=torch.float), requires_grad=trainable_codes)

    def forward(self, x):
        return self.scale(self.project_in(x)).round() * self.codes
