import copy

import torch.nn as nn
from munch import Munch


class Generator(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, z):
        return self.body(z)


class Discriminator(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(dim, dim), nn.LeakyReLU(0.2), nn.Linear(dim, 1))

    def forward(self, x):
        return self.body(x)


def build_nets(dim=64):
    generator = Generator(dim)
    discriminator = Discriminator(dim)
    generator_ema = copy.deepcopy(generator)
    nets = Munch(generator=generator, discriminator=discriminator)
    nets_ema = dict(generator=generator_ema)
    return nets, nets_ema
