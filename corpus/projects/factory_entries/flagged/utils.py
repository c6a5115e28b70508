import torch
import torch.nn.functional as F


def validate(net, loader):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            out = net(x)
            total += F.cross_entropy(out, y).item()
    return total


def fit(net, optimizer, loader, epochs):
    for _ in range(epochs):
        net.train()
        for x, y in loader:
            optimizer.zero_grad()
            F.cross_entropy(net(x), y).backward()
            optimizer.step()
        validate(net, loader)


def fit_one_epoch(net, optimizer, loader):
    net.train()
    for x, y in loader:
        optimizer.zero_grad()
        F.cross_entropy(net(x), y).backward()
        optimizer.step()
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            out = net(x)
            print(F.cross_entropy(out, y).item())
