import torch
from torch import nn


def first_of(*options):
    for o in options:
        if o is not None:
            return o
    return None


class ScalarCodec(nn.Module):
    def __init__(self, levels, dim=None):
        super().__init__()
        n_levels = len(levels)
        self.n_levels = n_levels
        self.width = first_of(dim, self.n_levels)
        self.register_buffer("scale", torch.tensor(levels, dtype=torch.float32))
        self.has_proj = self.width != self.n_levels
        if self.has_proj:
            self.down = nn.Linear(self.width, self.n_levels)
            self.up = nn.Linear(self.n_levels, self.width)
        else:
            self.down = nn.Identity()
            self.up = nn.Identity()

    def decode(self, codes):
        return self.up(codes.float() / self.scale)

    def forward(self, x):
        codes = torch.round(torch.tanh(self.down(x)) * self.scale)
        return self.decode(codes), codes
