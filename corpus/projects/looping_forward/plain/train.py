import torch
import torch.nn as nn
import torch.nn.functional as F

from nets.recurrent import Tracker


class LocalTracker(nn.Module):
    """The same model, defined here."""

    def __init__(self, size):
        super().__init__()
        self.embed = nn.Linear(2, size)
        self.cell = nn.GRUCell(size, size)
        self.out = nn.Linear(size, 2)

    def forward(self, seq):
        h = torch.zeros(seq.size(1), self.cell.hidden_size, device=seq.device)
        outs = []
        for t in range(seq.size(0)):
            h = self.cell(self.embed(seq[t]), h)
            outs.append(self.out(h))
        return torch.stack(outs)


def main(train_loader, val_loader, epochs):
    net = Tracker(16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(epochs):
        net.train()
        for seq, target in train_loader:
            loss = F.mse_loss(net(seq), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        error = 0.0
        with torch.no_grad():
            for seq, target in val_loader:
                # ok: TL212
                # expect: TL207
                pred = net.forward(seq)
                error += (pred - target).norm().item()
        print(epoch, error)


def run(train_loader, val_loader, epochs):
    net = Tracker(16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(epochs):
        net.train()
        for seq, target in train_loader:
            loss = F.mse_loss(net(seq), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        error = 0.0
        with torch.no_grad():
            for seq, target in val_loader:
                # ok: TL212
                pred = net(seq)
                error += (pred - target).norm().item()
        print(epoch, error)


def main_local(train_loader, val_loader, epochs):
    net = LocalTracker(16)
    opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    for epoch in range(epochs):
        net.train()
        for seq, target in train_loader:
            loss = F.mse_loss(net(seq), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
        error = 0.0
        with torch.no_grad():
            for seq, target in val_loader:
                # ok: TL212
                # expect: TL207
                pred = net.forward(seq)
                error += (pred - target).norm().item()
        print(epoch, error)
