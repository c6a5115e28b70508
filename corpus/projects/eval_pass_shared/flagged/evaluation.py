import torch
import torch.nn as nn


def validate(net, loader):
    correct = 0
    for x, y in loader:
        # expect: TL102
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


def smoke_test(loader):
    net = nn.Sequential(nn.Linear(16, 4))
    return validate(net, loader)
