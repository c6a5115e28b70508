"""A training helper in a file that imports nothing from PyTorch.

Without an import, nothing says what `optimizer` or `criterion` hold: the
names alone do not make a finding (the same code in a file that imports torch
is judged by them; see corpus/rules/TL201-missing-zero-grad.py).
"""
from .meters import AverageMeter


def run_epoch(model, loader, optimizer, criterion):
    meter = AverageMeter()
    total = 0
    for inputs, targets in loader:
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        # ok: TL201
        optimizer.step()
        # ok: TL101
        total += loss
        meter.update(loss)
    return total / len(loader)
