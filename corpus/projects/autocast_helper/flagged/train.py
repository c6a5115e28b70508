import torch
import torch.nn as nn
import torch.nn.functional as F

from utils.amp import Precision, amp_ctx, get_autocast


def train(scaler, loader):
    model = nn.Linear(16, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        with amp_ctx():
            out = model(x)
        # expect: TL401
        loss = F.cross_entropy(out, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


def train_cfg(scaler, loader, cfg):
    model = nn.Linear(16, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    ctx = get_autocast(cfg)
    for x, y in loader:
        opt.zero_grad()
        with ctx:
            logits = model(x)
        # expect: TL401
        loss = F.cross_entropy(logits, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


def train_precision(scaler, loader):
    model = nn.Linear(16, 4).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    precision = Precision()
    for x, y in loader:
        opt.zero_grad()
        with precision.region():
            out = model(x)
        # expect: TL401
        loss = F.mse_loss(out, y)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()


def train_bce(loader):
    model = nn.Linear(16, 1).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.BCELoss()
    for x, y in loader:
        opt.zero_grad()
        with amp_ctx():
            # expect: TL209
            loss = criterion(model(x).squeeze(1), y)
        loss.backward()
        opt.step()
