# A helper returning (loss, stats): the statistics are judged as the element
# the helper returns, detached or not, not as the whole call.
import torch.nn as nn
import torch.nn.functional as F


def detached_stats(logits, target):
    ce = F.cross_entropy(logits, target)
    return ce, {"ce": ce.detach()}


def attached_stats(logits, target):
    ce = F.cross_entropy(logits, target)
    return ce, {"ce": ce}


class SmoothLoss(nn.Module):
    def forward(self, logits, target):
        return F.cross_entropy(logits, target, label_smoothing=0.1)
import torch
import torch.nn as nn


def main(loader):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = SmoothLoss()
    kept, total = [], 0.0
    for x, y in loader:
        opt.zero_grad()
        loss, stats = detached_stats(model(x), y)
        loss.backward()
        opt.step()
        # ok: TL101
        kept.append(stats)
        loss2, stats2 = attached_stats(model(x), y)
        loss2.backward()
        # expect: TL101
        kept.append(stats2)
        # expect: TL101
        total += crit(model(x), y)
