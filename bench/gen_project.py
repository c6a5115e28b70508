#!/usr/bin/env python3
"""Writes a research-style PyTorch project for `make bench`'s multi-module
rows: PACKAGES subpackages of `proj/` (models, losses, data, engine, utils
modules each), re-exports in every `__init__.py`, relative and absolute
imports between them, a base trainer subclassed in another package, and one
training script per package at the top that imports through the packages,
and sweep.py, which trains the first six packages' models in one script.
Deterministic: the same arguments write the same bytes.

usage: gen_project.py DIR [--packages N]"""

import argparse
import os

MODELS = '''import torch
import torch.nn as nn
import torch.nn.functional as F

from ..utils.{p}_utils import init_weights_{p}
from proj.{q}.models import Encoder{q}


class Block{p}(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, dim * 2)
        self.fc2 = nn.Linear(dim * 2, dim)
        self.norm = nn.LayerNorm(dim)

    def forward(self, x):
        h = F.gelu(self.fc1(self.norm(x)))
        return x + self.fc2(h)


class Net{p}(nn.Module):
    def __init__(self, dim=64, depth=4, classes=10):
        super().__init__()
        self.encoder = Encoder{q}(dim)
        self.blocks = nn.ModuleList([Block{p}(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, classes)
        init_weights_{p}(self)

    def forward(self, x):
        x = self.encoder(x)
        for blk in self.blocks:
            x = blk(x)
        return self.head(x.mean(dim=1))


class Encoder{p}(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        return torch.tanh(self.proj(x))
'''

LOSSES = '''import torch
import torch.nn as nn
import torch.nn.functional as F


class Criterion{p}(nn.Module):
    def __init__(self, smoothing=0.1):
        super().__init__()
        self.ce = nn.CrossEntropyLoss(label_smoothing=smoothing)

    def forward(self, logits, target):
        loss = self.ce(logits, target)
        stats = {{"ce": loss.detach(), "acc": (logits.argmax(1) == target).float().mean().detach()}}
        return loss, stats


def kl_term_{p}(mu, logvar):
    return -0.5 * torch.mean(1 + logvar - mu.pow(2) - logvar.exp())
'''

DATA = '''import torch
from torch.utils.data import DataLoader, Dataset


class Synthetic{p}(Dataset):
    def __init__(self, n=512, dim=64, seq=8):
        g = torch.Generator().manual_seed({p})
        self.x = torch.randn(n, seq, dim, generator=g)
        self.y = torch.randint(0, 10, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def make_loader_{p}(batch_size=32, train=True):
    return DataLoader(Synthetic{p}(), batch_size=batch_size, shuffle=train, num_workers=2,
                      pin_memory=True, drop_last=train)
'''

ENGINE = '''import torch

from proj.{p}.losses import Criterion{p}
from ..{q}.engine import BaseTrainer{q}


class BaseTrainer{p}:
    def __init__(self, model, optimizer, device):
        self.model = model
        self.optimizer = optimizer
        self.device = device
        self.criterion = Criterion{p}()

    def train_step(self, x, y):
        self.model.train()
        self.optimizer.zero_grad(set_to_none=True)
        out = self.model(x.to(self.device, non_blocking=True))
        loss, stats = self.criterion(out, y.to(self.device, non_blocking=True))
        loss.backward()
        self.optimizer.step()
        return loss.item(), stats

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct = total = 0
        for x, y in loader:
            out = self.model(x.to(self.device))
            correct += (out.argmax(1).cpu() == y).sum().item()
            total += y.numel()
        self.model.train()
        return correct / max(total, 1)


class Trainer{p}(BaseTrainer{q}):
    def fit(self, loader, epochs=1):
        history = []
        for epoch in range(epochs):
            running = 0.0
            for x, y in loader:
                value, _ = self.train_step(x, y)
                running += value
            history.append(running / max(len(loader), 1))
        return history
'''

UTILS = '''import math

import torch.nn as nn


def init_weights_{p}(module):
    for m in module.modules():
        if isinstance(m, nn.Linear):
            nn.init.trunc_normal_(m.weight, std=0.02)
            if m.bias is not None:
                nn.init.zeros_(m.bias)


def cosine_{p}(step, total, base=1e-3):
    return base * 0.5 * (1 + math.cos(math.pi * step / max(total, 1)))
'''

INIT = '''from .models import Net{p}, Encoder{p}
from .losses import Criterion{p}
from .data import make_loader_{p}
from .engine import Trainer{p}
'''

TRAIN = '''import argparse

import torch

from proj.{p} import Net{p}, Trainer{p}, make_loader_{p}
from proj.utils_{p} import cosine_{p}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=2)
    args = ap.parse_args()
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Net{p}().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cosine_{p}(0, 1))
    trainer = Trainer{p}(model, optimizer, device)
    train_loader = make_loader_{p}(train=True)
    val_loader = make_loader_{p}(train=False)
    for epoch in range(args.epochs):
        trainer.fit(train_loader, epochs=1)
        acc = trainer.evaluate(val_loader)
        print(f"epoch {{epoch}}: accuracy {{acc:.3f}}")
    torch.save(model.state_dict(), "model_{p}.pt")


if __name__ == "__main__":
    main()
'''

# A sweep over the first SWEEP packages' models from one script at the top:
# the file of the "one file plus the modules it imports" latency row.
SWEEP = 6
SWEEP_HEAD = '''import torch

'''
SWEEP_IMPORT = "from proj.{p} import Net{p}, Trainer{p}, make_loader_{p}\n"
SWEEP_RUN = '''

def run_{p}(device, epochs=1):
    model = Net{p}().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    trainer = Trainer{p}(model, optimizer, device)
    train_loader, val_loader = make_loader_{p}(train=True), make_loader_{p}(train=False)
    best = 0.0
    for epoch in range(epochs):
        trainer.fit(train_loader, epochs=1)
        best = max(best, trainer.evaluate(val_loader))
    return best
'''
SWEEP_MAIN = '''

if __name__ == "__main__":
    device = "cuda" if torch.cuda.is_available() else "cpu"
    print({{name: run(device) for name, run in [{runs}]}})
'''


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)


def generate(root, packages):
    names = ["p%02d" % i for i in range(packages)]
    write(os.path.join(root, "pyproject.toml"), '[project]\nname = "proj"\nversion = "0"\n')
    write(os.path.join(root, "proj", "__init__.py"), "")
    files = []
    for i, p in enumerate(names):
        q = names[(i + 1) % packages]  # each package leans on the next: a ring of imports
        pkg = os.path.join(root, "proj", p)
        for name, tmpl in (("models", MODELS), ("losses", LOSSES), ("data", DATA),
                           ("engine", ENGINE), ("__init__", INIT)):
            path = os.path.join(pkg, name + ".py")
            write(path, tmpl.format(p=p, q=q))
            files.append(path)
        # utils live beside the packages: `..utils.pNN_utils` and `proj.utils_pNN`.
        u = os.path.join(root, "proj", "utils", p + "_utils.py")
        write(u, UTILS.format(p=p))
        files.append(u)
        u2 = os.path.join(root, "proj", "utils_%s.py" % p)
        write(u2, "from .utils.%s_utils import init_weights_%s, cosine_%s\n" % (p, p, p))
        files.append(u2)
        t = os.path.join(root, "train_%s.py" % p)
        write(t, TRAIN.format(p=p))
        files.append(t)
    swept = names[:SWEEP]
    runs = ", ".join('("%s", run_%s)' % (p, p) for p in swept)
    sw = os.path.join(root, "sweep.py")
    write(sw, SWEEP_HEAD + "".join(SWEEP_IMPORT.format(p=p) for p in swept) +
          "".join(SWEEP_RUN.format(p=p) for p in swept) + SWEEP_MAIN.format(runs=runs))
    files.append(sw)
    write(os.path.join(root, "proj", "utils", "__init__.py"), "")
    files.append(os.path.join(root, "proj", "utils", "__init__.py"))
    files.append(os.path.join(root, "proj", "__init__.py"))
    return sorted(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--packages", type=int, default=40)
    a = ap.parse_args()
    files = generate(a.dir, a.packages)
    print("%d files" % len(files))


if __name__ == "__main__":
    main()
