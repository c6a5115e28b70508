"""TL212 evaluation-in-train-mode: a generator whose only mode-dependent
layers are instance norms that track running statistics, in a program that
never puts a model in eval mode (StarGAN's solver). Those statistics are
read only in eval mode: sampling in train mode gives the outputs the
program trains with, so the evaluation in train mode is no mistake. With
batch norm, or dropout, it would be (corpus/rules/TL212-tracked-instance-
norm-eval.py: the same generator in a program that switches to eval mode).
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
                    # ok: TL212
                    sample = self.G(x_fixed)
                    print(sample.mean().item())

    def restore(self, path):
        self.G.load_state_dict(torch.load(path, weights_only=True))

    def test(self, loader, path):
        self.restore(path)
        with torch.no_grad():
            for x in loader:
                # ok: TL212
                fake = self.G(x)
                print(fake.mean().item())


def main(loader, x_fixed, mode, path):
    solver = Solver()
    if mode == "train":
        solver.train(loader, x_fixed)
    elif mode == "test":
        solver.test(loader, path)
