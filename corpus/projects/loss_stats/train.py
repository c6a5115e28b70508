import torch
import torch.nn as nn

from pkg import SmoothLoss, attached_stats, detached_stats


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
