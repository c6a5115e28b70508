import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.amp import amp_ctx, full_precision, get_autocast


def train(loader, use_amp=False):
    model = nn.Linear(16, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        with amp_ctx(use_amp):
            out = model(x)
        # the helper may hand back a nullcontext: not counted as autocast
        # ok: TL401
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()


def train_cfg(loader, cfg):
    model = nn.Linear(16, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ctx = get_autocast(cfg)
    criterion = nn.BCELoss()
    for x, y in loader:
        opt.zero_grad()
        with ctx:
            # ok: TL209
            loss = criterion(model(x).squeeze(1), y)
        loss.backward()
        opt.step()


def train_full(loader):
    model = nn.Linear(16, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        with full_precision():
            out = model(x)
        # ok: TL401
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
