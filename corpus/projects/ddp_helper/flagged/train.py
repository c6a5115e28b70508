import torch
import torch.nn as nn
import torch.nn.functional as F

from engine.dist import init_distributed, unwrap, wrap


def train(loader, epochs=3):
    rank = init_distributed()
    model = wrap(nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4)), rank)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(epochs):
        for x, y in loader:
            x, y = x.cuda(rank), y.cuda(rank)
            # expect: TL213
            loss = F.cross_entropy(model.module(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
    return model


def finetune(loader):
    rank = init_distributed()
    model = wrap(nn.Linear(16, 4), rank)
    net = unwrap(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for x, y in loader:
        x, y = x.cuda(rank), y.cuda(rank)
        # expect: TL213
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    torch.save(net.state_dict(), "finetuned.pt")
