import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        return self.drop(self.proj(x))


class Generator(object):
    """Holds the networks; trained elsewhere, sampled by its importers."""

    def __init__(self, enc, dec, device="cpu"):
        self.enc = enc
        self.dec = dec
        self.device = device

    def eval_mode(self):
        self.enc.eval()
        self.dec.eval()

    def generate(self, x, steps):
        x = x.detach().to(self.device)
        outs = []
        for _ in range(steps):
            # sample.py calls generate with gradients on
            # expect: TL102
            h = self.enc(x)
            # expect: TL102
            x = self.dec(h)
            # expect: TL106
            outs.append(x)
        return torch.cat(outs, dim=0)
