import torch
from torch import nn

from .evaluate import run_validation


def fit(loader, held_out, epochs=3):
    net = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.2), nn.Linear(32, 4))
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    net.train()
    for epoch in range(epochs):
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            nn.functional.cross_entropy(net(x), y).backward()
            opt.step()
            if i % 50 == 0:
                # expect: TL203
                run_validation(net, held_out)
