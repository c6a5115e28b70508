"""Eval mode set in the constructor, the forward in another method.

An evaluator puts its model in eval mode once, in `__init__`, and runs the
model in `run()` with gradient tracking on: nothing in the file switches
the model back, so every forward in `run()` records a graph no backward
uses (TL102). The twins: the forward under no_grad; a class that switches
the model to train mode in another method (its mode in `run()` depends on
the order of calls); an nn.Module that freezes a part in its constructor
(the owner's `.train()` switches it back); a model put in eval mode only
under a condition.
"""
import torch
import torch.nn as nn


class Evaluator:
    def __init__(self, model, loader):
        self.model = model
        self.model.eval()
        self.loader = loader

    def run(self):
        correct = 0
        for x, y in self.loader:
            # expect: TL102
            out = self.model(x)
            correct += (out.argmax(1) == y).sum().item()
        return correct

    @torch.no_grad()
    def run_no_grad(self):
        correct = 0
        for x, y in self.loader:
            # ok: TL102
            out = self.model(x)
            correct += (out.argmax(1) == y).sum().item()
        return correct


class Finetuner:
    def __init__(self, model, loader):
        self.model = model
        self.model.eval()
        self.loader = loader
        self.opt = torch.optim.SGD(model.parameters(), lr=0.01)

    def score(self, x):
        # ok: TL102
        return self.model(x).argmax(1)

    def fit(self):
        self.model.train()
        for x, y in self.loader:
            loss = nn.functional.cross_entropy(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


class Probe(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.backbone.eval()
        self.head = nn.Linear(512, 10)

    def forward(self, x):
        # ok: TL102
        return self.head(self.backbone(x))


class MaybeFrozen:
    def __init__(self, model, freeze):
        self.model = model
        if freeze:
            self.model.eval()

    def predict(self, x):
        # ok: TL102
        return self.model(x).argmax(1)
