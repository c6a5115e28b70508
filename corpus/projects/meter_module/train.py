import torch
import torch.nn.functional as F
from torch import nn

from utils.meters import AverageMeter, GradAccumulator, StepLog


def train(loader, epochs):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = AverageMeter()
    log = StepLog()
    for _ in range(epochs):
        for x, y in loader:
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            # expect: TL101
            losses.update(loss, x.size(0))
            # expect: TL101
            log.record(value=loss)
    return losses.avg, log


def train_numbers(loader, val_loader):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = AverageMeter()
    val_losses = AverageMeter()
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # ok: TL101
        losses.update(loss.item(), x.size(0))
    with torch.no_grad():
        for x, y in val_loader:
            # ok: TL101
            val_losses.update(F.cross_entropy(model(x), y), x.size(0))
    return losses.avg, val_losses.avg


def train_accumulated(loader, every=4):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    acc = GradAccumulator()
    for i, (x, y) in enumerate(loader):
        # ok: TL101
        acc.add(F.cross_entropy(model(x), y))
        if (i + 1) % every == 0:
            acc.total.backward()
            opt.step()
            opt.zero_grad()
            acc = GradAccumulator()


def train_meter_per_step(loader):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        # A meter made anew every step lives for one step.
        step_meter = AverageMeter()
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # ok: TL101
        step_meter.update(loss)
