"""A base trainer whose epoch methods call hooks a subclass fills in
(`train()` runs `self._train()`, `test()` runs `self._test()`), the base's
own hooks being stubs (`pass`, `raise NotImplementedError`). With one local
subclass defining a hook, `self._test()` in the base runs that override: the
subclass's `_test` leaves the model in eval mode and nothing restores it, so
the epoch loop's `trainer.test(...)` is TL203."""
import time

import torch
from torch import nn


class EpochTrainer:
    def train(self, loader):
        start = time.time()
        metrics = self._train(loader)
        print("train", time.time() - start)
        return metrics

    def test(self, loader):
        return self._test(loader)

    def _train(self, loader):
        pass

    def _test(self, loader):
        raise NotImplementedError("subclasses evaluate")


class TaggerTrainer(EpochTrainer):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def _train(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def _test(self, loader):
        self.model.eval()
        with torch.no_grad():
            return sum((self.model(x).argmax(1) == y).sum().item() for x, y in loader)


def fit(model, train_loader, val_loader, epochs):
    trainer = TaggerTrainer(model)
    for epoch in range(epochs):
        trainer.train(train_loader)
        # expect: TL203
        trainer.test(val_loader)


# Two subclasses define the hook: which one runs depends on the object, and
# the base's call is not resolved to either. Known miss.
class Hooks:
    def step(self, loader):
        return self._eval(loader)

    def _eval(self, loader):
        pass


class EvalHooks(Hooks):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)

    def fit_epoch(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def _eval(self, loader):
        self.model.eval()


class QuietHooks(Hooks):
    def _eval(self, loader):
        return len(loader)


def fit_hooks(model, train_loader, val_loader, epochs):
    hooks = EvalHooks(model)
    for epoch in range(epochs):
        hooks.fit_epoch(train_loader)
        # todo-expect: TL203
        hooks.step(val_loader)
