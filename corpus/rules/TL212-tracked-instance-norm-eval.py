"""TL212 evaluation-in-train-mode: the generator of
TL212-tracked-instance-norm.py (its only mode-dependent layers are instance
norms that track running statistics) in a program that puts a model in eval
mode (`translate`, below): there its instance norms read their running
statistics, so an evaluation left in train mode gives other outputs than
the model in eval mode would. Reported as for batch norm.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(dim, dim, 3, 1, 1, bias=False),
            nn.InstanceNorm2d(dim, affine=True, track_running_stats=True),
            nn.ReLU(inplace=True),
        )

    def forward(self, x):
        return x + self.main(x)


class Generator(nn.Module):
    def __init__(self, dim=16):
        super().__init__()
        layers = [nn.Conv2d(3, dim, 7, 1, 3, bias=False)]
        layers.append(nn.InstanceNorm2d(dim, affine=True, track_running_stats=True))
        layers.append(ResidualBlock(dim))
        layers.append(nn.Conv2d(dim, 3, 7, 1, 3, bias=False))
        self.main = nn.Sequential(*layers)

    def forward(self, x):
        return torch.tanh(self.main(x))


class Solver:
    def __init__(self):
        self.G = Generator()
        self.opt = torch.optim.Adam(self.G.parameters())

    def train(self, loader, x_fixed):
        for i, x in enumerate(loader):
            loss = F.l1_loss(self.G(x), x)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if i % 100 == 0:
                with torch.no_grad():
                    sample = self.G(x_fixed)
                    print(sample.mean().item())

    def restore(self, path):
        self.G.load_state_dict(torch.load(path, weights_only=True))

    def test(self, loader, path):
        self.restore(path)
        with torch.no_grad():
            for x in loader:
                # expect: TL212
                fake = self.G(x)
                print(fake.mean().item())


def main(loader, x_fixed, mode, path):
    solver = Solver()
    if mode == "train":
        solver.train(loader, x_fixed)
    elif mode == "test":
        solver.test(loader, path)


def translate(path, loader):
    G = Generator()
    G.load_state_dict(torch.load(path, weights_only=True))
    G.eval()
    with torch.no_grad():
        return [G(x) for x in loader]
