"""Whether a forward records a graph (TL102) when what it runs on, or what
its module holds, comes from a helper or from the forward's own caller.

A helper's result requires grad as the arguments it is handed do: a grid
of coordinates computed from a size (handed by keyword, or left to its
default) requires none, so a module that keeps it and registers buffers
only holds no parameter; the same helper handed a tensor that requires
grad gives one that does. A forward's own parameter requires grad as its
callers' arguments do: where no call site in the project shows one (a
class a registry builds, called from other code), that is not known, and
a module run only on it is not reported.
"""
import math

import torch
from torch import nn


def coordinate_grid(size: int = 8, scale=1.0):
    xs = torch.linspace(-1, 1, size) * scale
    ys, xs = torch.meshgrid(xs, xs, indexing="ij")
    return {"radius": torch.sqrt(xs**2 + ys**2), "angle": torch.atan2(ys, xs)}


def polar_basis(grid, order: int = 4):
    return torch.stack([torch.cos(k * math.pi * grid["angle"]) for k in range(order)])


class PolarEncoding(nn.Module):
    def __init__(self, size: int = 8, order: int = 4):
        super().__init__()
        self.size = size
        self.grid = coordinate_grid(size=size)
        self.register_buffer("basis", polar_basis(self.grid, order=order))
        self.channels: int = self.basis.shape[0]

    def forward(self, x):
        return torch.einsum("bchw,khw->bkchw", x, self.basis).flatten(1, 2)


class ScaledEncoding(nn.Module):
    def __init__(self, scale, size: int = 8):
        super().__init__()
        self.grid = coordinate_grid(size, scale=scale)

    def forward(self, x):
        return x * self.grid["radius"]


def test_polar_encoding():
    patches = torch.rand(2, 3, 8, 8)
    encoding = PolarEncoding(size=8)
    encoding.eval()
    # ok: TL102
    out = encoding(patches)
    assert out.shape[1] == 12


def test_scaled_encoding():
    patches = torch.rand(2, 3, 8, 8)
    scale = torch.ones((), requires_grad=True)
    encoding = ScaledEncoding(scale)
    encoding.eval()
    # expect: TL102
    out = encoding(patches)
    assert out.shape == patches.shape


class InverseMel(nn.Module):
    def __init__(self, n_mels, n_freq):
        super().__init__()
        self.n_mels = n_mels
        self.register_buffer("basis", torch.pinverse(torch.rand(n_mels, n_freq)))

    def forward(self, mel):
        return self.basis.matmul(mel).clamp(min=0)


class Vocoder(nn.Module):
    """Built by name from a registry elsewhere: no call site shows what
    its forward is handed."""

    def __init__(self, n_mels, n_freq):
        super().__init__()
        self.inverse = InverseMel(n_mels, n_freq)
        self.smooth = InverseMel(n_freq, n_freq)

    def forward(self, x):
        self.eval()
        x = x.exp().transpose(-1, -2)
        # ok: TL102
        x = self.inverse(x)
        # ok: TL102
        return self.smooth(x)


class ProjectedVocoder(nn.Module):
    def __init__(self, dim, n_mels, n_freq):
        super().__init__()
        self.proj = nn.Linear(dim, n_mels)
        self.inverse = InverseMel(n_mels, n_freq)

    def forward(self, x):
        self.eval()
        # expect: TL102
        return self.inverse(self.proj(x).transpose(-1, -2))


VOCODERS = {"griffin_lim": Vocoder, "projected": ProjectedVocoder}


def build_vocoder(name, *args):
    return VOCODERS[name](*args)
