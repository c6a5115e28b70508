"""TL203 eval-mode-not-restored: a model re-bound to its own wrapper.

A fine-tuning class keeps its network on `self.net`. Its scoring method
reads it into a local name and, on several GPUs, re-binds that name to a
DataParallel wrapping it (`net = nn.DataParallel(net)`) before `net.eval()`:
the wrapper's mode is the wrapped network's, so the switch puts `self.net`
in eval mode whichever binding runs. The training loop calls the scoring
method every few steps through another method and never switches the network
back: every later step trains in eval mode (a finding at the call). The twin
calls `net.train()` after scoring (no finding). A name re-bound to something
else than a wrapper of itself (another network) is not followed.
"""
import torch
import torch.nn.functional as F
from torch import nn


class Scorer(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(width, width), nn.Dropout(0.25), nn.Linear(width, 3))

    def forward(self, x):
        return self.layers(x)


class FineTuner:
    def __init__(self, width, gpus):
        self.net = Scorer(width)
        self.gpus = gpus

    def fit(self, batches, held_out, rounds, every):
        net = self.net
        if self.gpus > 1:
            net = nn.DataParallel(net)
        opt = torch.optim.SGD(net.parameters(), lr=0.05)
        seen = 0
        for _ in range(rounds):
            net.train()
            for x, y in batches:
                loss = F.cross_entropy(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                seen += 1
                if seen % every == 0:
                    # expect: TL203
                    report = self.report(held_out)

    def fit_restored(self, batches, held_out, rounds, every):
        net = self.net
        if self.gpus > 1:
            net = nn.DataParallel(net)
        opt = torch.optim.SGD(net.parameters(), lr=0.05)
        seen = 0
        for _ in range(rounds):
            for x, y in batches:
                net.train()
                loss = F.cross_entropy(net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                seen += 1
                if seen % every == 0:
                    # ok: TL203
                    report = self.report(held_out)

    def report(self, held_out):
        hits, total = self.score(held_out)
        return hits / max(total, 1)

    def score(self, held_out):
        net = self.net
        if self.gpus > 1:
            net = nn.DataParallel(net)
        net.eval()
        hits = total = 0
        with torch.no_grad():
            for x, y in held_out:
                hits += (net(x).argmax(1) == y).sum().item()
                total += len(y)
        return hits, total


class SwappedScorer:
    def __init__(self, width, spare):
        self.net = Scorer(width)
        self.spare = spare

    def fit(self, batches, held_out, rounds, every):
        opt = torch.optim.SGD(self.net.parameters(), lr=0.05)
        seen = 0
        for _ in range(rounds):
            self.net.train()
            for x, y in batches:
                loss = F.cross_entropy(self.net(x), y)
                opt.zero_grad()
                loss.backward()
                opt.step()
                seen += 1
                if seen % every == 0:
                    # ok: TL203
                    self.score_spare(held_out)

    def score_spare(self, held_out):
        # the name ends up on another network (not a wrapper of the first):
        # which one is switched cannot be told from the name
        net = self.net
        if self.spare is not None:
            net = self.spare
        net.eval()
        with torch.no_grad():
            return [net(x).argmax(1) for x, _ in held_out]
