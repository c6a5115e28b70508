import torch
import torch.nn as nn

from pkg_a.helpers import batch_loss


def main(loader):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    seen = 0.0
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        # ok: TL101
        seen += batch_loss(model, x, y)
    return seen
