import torch
from torch import nn

from engine.epochs import EpochTrainer


class TaggerTrainer(EpochTrainer):
    def __init__(self, model, lr=0.01):
        super().__init__()
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)

    def _train(self, loader):
        self.model.train()
        total = 0.0
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = nn.functional.cross_entropy(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total / max(len(loader), 1)

    def _test(self, loader):
        self.model.eval()
        with torch.no_grad():
            hits = sum((self.model(x).argmax(1) == y).sum().item() for x, y in loader)
        return hits


def fit(model, train_loader, val_loader, epochs=5):
    trainer = TaggerTrainer(model)
    for epoch in range(epochs):
        trainer.train(train_loader)
        # ok: TL203
        trainer.test(val_loader)
