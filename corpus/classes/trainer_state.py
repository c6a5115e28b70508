"""Trainer classes: a class is one unit of state (RULES.md principle 2).

`self.<attr>` bound in any method is the same object in every method, and
`self.m(...)` / `trainer.m(...)` on an instance of a class defined here is a
local call whose receiver stands for `self`: the no_grad block, the mode and
the loop around the call count inside the method, and what the method does
counts in the loop that calls it. Base-class methods that call `self.m()`
may run any override of `m` in a derived class.
"""
import torch
from torch import nn
import torch.nn.functional as F


class Classifier(nn.Module):
    def __init__(self, width=128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(32, width), nn.BatchNorm1d(width), nn.ReLU(), nn.Dropout(0.2))
        self.head = nn.Linear(width, 5)

    def forward(self, x):
        return self.head(self.body(x))


class Trainer:
    """The model, optimizer, criterion and running totals live on self."""

    def __init__(self, train_loader, val_loader, device="cuda"):
        self.device = device
        self.net = Classifier().to(device)
        self.optimizer = torch.optim.AdamW(self.net.parameters(), lr=3e-4)
        self.criterion = nn.CrossEntropyLoss()
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.epoch_loss = 0.0
        self.smoothed = 0.0

    def _logits(self, batch):
        # validate() is the only caller, after self.net.eval(); main() runs
        # validate() under no_grad, so no graph is recorded here
        # ok: TL102
        return self.net(batch)

    def train_epoch(self):
        self.net.train()
        for xb, yb in self.train_loader:
            xb, yb = xb.to(self.device), yb.to(self.device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.net(xb), yb)
            loss.backward()
            self.optimizer.step()
            # a running total on self outlives the iteration
            # expect: TL101
            self.epoch_loss += loss
            # ok: TL101
            self.smoothed = 0.9 * self.smoothed + 0.1 * loss.detach()

    def validate(self):
        self.net.eval()
        hits = 0
        for xb, yb in self.val_loader:
            hits += (self._logits(xb).argmax(1) == yb).sum().item()
        return hits


class ReportingTrainer(Trainer):
    """report() is called with gradients on; its helper inherits its mode."""

    def _scores(self, batch):
        # the mode here is the one report(), the only caller, leaves self.net in
        # expect: TL102
        return self.net(batch).softmax(-1)

    def report(self):
        self.net.eval()
        return [self._scores(xb).max(-1).values.mean().item() for xb, _ in self.val_loader]


class QuietTrainer(Trainer):
    """validate() runs only under no_grad: its forwards record no graph."""

    def score(self):
        self.net.eval()
        total = 0.0
        for xb, yb in self.val_loader:
            # ok: TL102
            total += self.criterion(self.net(xb), yb).item()
        return total

    def fit(self, epochs):
        for _ in range(epochs):
            self.train_epoch()
            with torch.no_grad():
                self.score()


class PeriodicEvalTrainer:
    """A training loop that calls a method which switches the model to eval."""

    def __init__(self, model, loader):
        self.model = model
        self.loader = loader
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.05, momentum=0.9)

    @torch.no_grad()
    def quick_check(self, xb, yb):
        self.model.eval()
        return (self.model(xb).argmax(1) == yb).float().mean().item()

    @torch.no_grad()
    def check_and_resume(self, xb, yb):
        self.model.eval()
        acc = (self.model(xb).argmax(1) == yb).float().mean().item()
        self.model.train()
        return acc

    def run(self):
        self.model.train()
        for step, (xb, yb) in enumerate(self.loader):
            self.opt.zero_grad()
            F.cross_entropy(self.model(xb), yb).backward()
            self.opt.step()
            if step % 200 == 0:
                # expect: TL203
                self.quick_check(xb, yb)

    def run_restoring(self):
        self.model.train()
        for step, (xb, yb) in enumerate(self.loader):
            self.opt.zero_grad()
            F.cross_entropy(self.model(xb), yb).backward()
            self.opt.step()
            if step % 200 == 0:
                # the method puts the model back in train mode itself
                # ok: TL203
                self.check_and_resume(xb, yb)


class EpochRunner:
    """A trainer whose own methods are named like module methods: self.eval()
    and self.cuda() run the bodies below, not nn.Module.eval / Tensor.cuda."""

    def __init__(self, device):
        self.device = device
        self.model = Classifier().to(device)
        self.opt = torch.optim.Adam(self.model.parameters())

    def cuda(self, *tensors):
        return (t.to(self.device) for t in tensors)

    @torch.no_grad()
    def eval(self, loader):
        self.model.eval()
        correct = sum((self.model(x).argmax(1) == y).sum().item() for x, y in loader)
        self.model.train()
        return correct

    def train(self, loader, val_loader):
        self.model.train()
        for it, (x, y) in enumerate(loader):
            # ok: TL302
            x, y = self.cuda(x, y)
            self.opt.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.opt.step()
            if it % 500 == 0:
                # ok: TL203
                self.eval(val_loader)


class BaseTrainer:
    """The base class owns the loop; derived classes supply the epochs."""

    def __init__(self, model, loaders):
        self.model = model
        self.loaders = loaders

    def fit(self, epochs):
        for _ in range(epochs):
            self._train_epoch()
            with torch.no_grad():
                self._valid_epoch()


class PairTrainer(BaseTrainer):
    def __init__(self, model, loaders):
        super().__init__(model, loaders)
        self.opt = torch.optim.Adam(model.parameters(), lr=1e-3)

    def _train_epoch(self):
        self.model.train()
        for a, b in self.loaders["train"]:
            self.opt.zero_grad()
            F.mse_loss(self.model(a), self.model(b)).backward()
            self.opt.step()

    def _valid_epoch(self):
        # only ever run by BaseTrainer.fit, under no_grad
        self.model.eval()
        dist = 0.0
        for a, b in self.loaders["val"]:
            # ok: TL102
            fa = self.model(a)
            # ok: TL102
            fb = self.model(b)
            dist += (fa - fb).pow(2).sum().item()
        return dist


def switch_to_eval(model):
    model.eval()


def predict_all(model, loader):
    switch_to_eval(model)
    outs = []
    for x, _ in loader:
        # expect: TL102
        outs.append(model(x).argmax(1))
    return outs


def main(train_loader, val_loader):
    trainer = Trainer(train_loader, val_loader)
    for _ in range(10):
        trainer.train_epoch()
        # the instance's methods are local calls too: validate() runs under no_grad here
        with torch.no_grad():
            trainer.validate()
    PeriodicEvalTrainer(Classifier(), train_loader).run()
    print(ReportingTrainer(train_loader, val_loader).report())
    return predict_all(trainer.net, val_loader)
