"""Softmax outputs that reach cross-entropy through calls (TL208).

Cross-entropy applies log-softmax itself. The probabilities arrive here
through a loss helper's parameter (every caller passes a softmax, so the
loss call in the helper is reported), as the exponential of a log-softmax
(`torch.exp(F.log_softmax(s, 1))`, `self.lsm(s).exp()`), or returned by the
model's own `forward`. The twins: the same helper that every caller hands
logits, a helper whose callers disagree, the exponential of plain logits,
and log-probabilities given to NLLLoss.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def ce_on_probs(p, t):
    # expect: TL208
    return nn.CrossEntropyLoss()(p, t)


def ce_on_logits(s, t):
    # ok: TL208
    return F.cross_entropy(s, t)


def ce_mixed(x, t):
    # ok: TL208
    return F.cross_entropy(x, t)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)
        self.lsm = nn.LogSoftmax(dim=1)

    def forward(self, x):
        return F.softmax(self.fc(x), dim=1)

    def logits(self, x):
        return self.fc(x)

    def training_loss(self, x, y):
        probs = self.forward(x)
        # expect: TL208
        return F.cross_entropy(probs, y)

    def training_loss_logits(self, x, y):
        # ok: TL208
        return F.cross_entropy(self.logits(x), y)

    def probs_from_log(self, s):
        return self.lsm(s).exp()

    def loss_from_log(self, s, y):
        # expect: TL208
        return F.cross_entropy(torch.exp(self.lsm(s)), y)


def train(loader):
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    for x, y in loader:
        s = net.logits(x)
        a = ce_on_probs(F.softmax(s, dim=1), y)
        b = ce_on_logits(s, y)
        c = ce_mixed(s, y) + ce_mixed(F.softmax(s, dim=1), y)
        # expect: TL208
        d = crit(torch.exp(F.log_softmax(s, 1)), y)
        # A layer of the model reached from outside its class, followed to
        # its construction in `__init__` (an nn.LogSoftmax).
        # expect: TL208
        e = crit(torch.exp(net.lsm(s)), y)
        # expect: TL208
        f = crit(net.probs_from_log(s), y)
        # ok: TL208
        g = crit(torch.exp(s), y)
        # ok: TL208, TL210
        h = F.nll_loss(F.log_softmax(s, dim=1), y)
        opt.zero_grad()
        (a + b + c + d + e + f + g + h).backward()
        opt.step()
