"""A local alias of an attribute: `net = self.net`, then `net.eval()`.

The evaluation method switches the trainer's model through a local name;
the training loop calls it every N steps and never switches the model back,
so training goes on in eval mode (TL203). The twins: the evaluation method
restores train mode through the same alias, and an alias of a model that no
optimizer trains (an EMA copy) may stay in eval mode.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Sequential(nn.Linear(32, 64), nn.Dropout(0.2), nn.Linear(64, 10))

    def forward(self, x):
        return self.fc(x)


class Trainer:
    def __init__(self, loader, val_loader):
        self.net = Net()
        self.ema = Net()
        self.opt = torch.optim.SGD(self.net.parameters(), lr=0.1)
        self.loader = loader
        self.val_loader = val_loader

    def evaluate(self):
        net = self.net
        net.eval()
        with torch.no_grad():
            return sum(F.cross_entropy(net(x), y).item() for x, y in self.val_loader)

    def evaluate_and_restore(self):
        net = self.net
        net.eval()
        with torch.no_grad():
            total = sum(F.cross_entropy(net(x), y).item() for x, y in self.val_loader)
        net.train()
        return total

    def evaluate_ema(self):
        ema = self.ema
        ema.eval()
        with torch.no_grad():
            return sum(F.cross_entropy(ema(x), y).item() for x, y in self.val_loader)

    def train(self):
        self.net.train()
        for step, (x, y) in enumerate(self.loader):
            loss = F.cross_entropy(self.net(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if step % 100 == 0:
                # expect: TL203
                self.evaluate()

    def train_restoring(self):
        self.net.train()
        for step, (x, y) in enumerate(self.loader):
            loss = F.cross_entropy(self.net(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()
            if step % 100 == 0:
                # ok: TL203
                self.evaluate_and_restore()
                # ok: TL203
                self.evaluate_ema()
