import torch.nn as nn


def score(net: nn.Module, loader, train):
    if train == False:
        net.eval()
    correct = 0
    for x, y in loader:
        # expect: TL102
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


def score_train(net: nn.Module, loader, train=True):
    if not train:
        net.eval()
    correct = 0
    for x, y in loader:
        # ok: TL102
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


def run_epoch(net: nn.Module, loader, opt, mode):
    if mode == "train":
        net.train()
    else:
        net.eval()
    total = 0.0
    for x, y in loader:
        # ok: TL102
        out = net(x)
        loss = nn.functional.cross_entropy(out, y)
        if mode == "train":
            opt.zero_grad()
            loss.backward()
            opt.step()
        total += loss.item()
    return total
