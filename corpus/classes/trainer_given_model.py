"""A trainer object that keeps the model it is given and builds the
optimizer over it: the model is trained there, so an evaluation method that
leaves it in eval mode inside the epoch loop is TL203, whether the loop is a
method of the trainer or a function that drives a trainer object. Twins: a
train method that switches the model back, and a trainer whose optimizer
updates another module than the one evaluated."""
import torch
from torch import nn


class Trainer:
    def __init__(self, model, lr=1e-3):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    def train_epoch(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            nn.functional.cross_entropy(self.model(x), y).backward()
            self.optimizer.step()

    def evaluate(self, loader):
        self.model.eval()
        with torch.no_grad():
            return sum((self.model(x).argmax(1) == y).sum().item() for x, y in loader)

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            self.train_epoch(train_loader)
            # expect: TL203
            self.evaluate(val_loader)


class RestoringTrainer(Trainer):
    def train_epoch(self, loader):
        self.model.train()
        super().train_epoch(loader)


def run(model, train_loader, val_loader, epochs):
    trainer = Trainer(model)
    for epoch in range(epochs):
        trainer.train_epoch(train_loader)
        # expect: TL203
        trainer.evaluate(val_loader)


def run_restoring(model, train_loader, val_loader, epochs):
    trainer = RestoringTrainer(model)
    for epoch in range(epochs):
        trainer.train_epoch(train_loader)
        # ok: TL203
        trainer.evaluate(val_loader)


class HeadTrainer:
    """Trains a head on a frozen backbone, which stays in eval mode."""

    def __init__(self, backbone, head):
        self.backbone = backbone
        self.head = head
        self.optimizer = torch.optim.SGD(head.parameters(), lr=0.1)

    def train_epoch(self, loader):
        self.head.train()
        for x, y in loader:
            self.optimizer.zero_grad()
            with torch.no_grad():
                feats = self.backbone(x)
            nn.functional.cross_entropy(self.head(feats), y).backward()
            self.optimizer.step()

    def embed(self, loader):
        self.backbone.eval()
        with torch.no_grad():
            return [self.backbone(x) for x, _ in loader]

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            self.train_epoch(train_loader)
            # ok: TL203
            self.embed(val_loader)
