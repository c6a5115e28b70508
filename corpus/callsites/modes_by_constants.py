"""Modes a test of the function's parameters decides, read per call site.

`if mode == "train": model.train() else: model.eval()` in a helper leaves
the model in the mode each call site's constant selects (a literal, a
keyword literal, the default it leaves). The forwards of the helper are
judged per call site: a call whose constants put the model in eval mode,
whose forward reaches no backward under them, evaluates with gradient
tracking on (TL102 at that call, or at the forward itself when no call
backpropagates it); a call in train mode whose loss reaches the backward
is the training step.
"""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.1), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)


# The shared epoch: trains under mode="train", evaluates otherwise.
def run_epoch(net, loader, mode):
    if mode == "train":
        net.train()
    else:
        net.eval()
    total = 0.0
    for x, y in loader:
        out = net(x)
        loss = nn.functional.cross_entropy(out, y)
        if mode == "train":
            opt.zero_grad()
            loss.backward()
            opt.step()
        total += loss.item()
    return total


# The same under set_grad_enabled: no graph outside training.
def run_epoch_grad(net, loader, mode):
    if mode == "train":
        net.train()
    else:
        net.eval()
    total = 0.0
    with torch.set_grad_enabled(mode == "train"):
        for x, y in loader:
            out = net(x)
            loss = nn.functional.cross_entropy(out, y)
            if mode == "train":
                opt.zero_grad()
                loss.backward()
                opt.step()
            total += loss.item()
    return total


# A test that only evaluates, in the mode its flag asks.
def score(net, loader, train):
    if train == True:
        net.train()
    if train == False:
        net.eval()
    correct = 0
    for x, y in loader:
        # expect: TL102
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


# The same, every call in train mode.
def score_train(net, loader, train=True):
    if not train:
        net.eval()
    correct = 0
    for x, y in loader:
        # ok: TL102
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


def fit(train_loader, valid_loader, epochs):
    for epoch in range(epochs):
        # ok: TL102
        run_epoch(model, train_loader, "train")
        # expect: TL102
        run_epoch(model, valid_loader, mode="valid")
        # ok: TL102
        run_epoch_grad(model, train_loader, "train")
        # ok: TL102
        run_epoch_grad(model, valid_loader, "valid")
    score(model, valid_loader, train=True)
    score(model, valid_loader, train=False)


def fit_train_scores(valid_loader):
    model.train()
    score_train(model, valid_loader)
    score_train(model, valid_loader, train=True)
