"""The template-method trainer of template_method_trainer.py whose training
hook puts the model back in train mode: nothing to report."""
import torch
from torch import nn


class EpochTrainer:
    def train(self, loader):
        return self._train(loader)

    def test(self, loader):
        return self._test(loader)

    def _train(self, loader):
        raise NotImplementedError

    def _test(self, loader):
        raise NotImplementedError


class TaggerTrainer(EpochTrainer):
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

    def _train(self, loader):
        self.model.train()
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
        # ok: TL203
        trainer.test(val_loader)
