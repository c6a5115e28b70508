import torch
import torch.nn as nn


def fit(classifier, loader):
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(classifier.parameters(), lr=0.01)
    for x, y in loader:
        opt.zero_grad()
        pred = classifier(x)
        # expect: TL208
        loss = crit(pred, y)
        loss.backward()
        opt.step()


def fit_logits(net, loader):
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for x, y in loader:
        opt.zero_grad()
        # ok: TL208
        loss = crit(net(x), y)
        loss.backward()
        opt.step()


def fit_mixed(net, loader):
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for x, y in loader:
        opt.zero_grad()
        # one caller passes a softmax model, the other logits
        # ok: TL208
        loss = crit(net(x), y)
        loss.backward()
        opt.step()
