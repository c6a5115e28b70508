import torch
import torch.nn as nn

from models import BigProbHead, LogitHead, ProbHead


def train(loader):
    crit = nn.CrossEntropyLoss()
    probs, logits, big = ProbHead(), LogitHead(), BigProbHead()
    params = list(probs.parameters()) + list(logits.parameters()) + list(big.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        # expect: TL208
        loss = crit(probs(x), y)
        # ok: TL208
        loss = loss + crit(logits(x), y)
        # expect: TL208
        loss = loss + crit(big(x), y)
        loss.backward()
        opt.step()
