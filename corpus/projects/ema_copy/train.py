import torch
import torch.nn as nn
import torch.nn.functional as F

from averaging import SharedView, WeightAverage


def train_epoch(model, loader, opt, average):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        average.update(model)


def train_steps(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    return sum(float((model(x).argmax(1) == y).float().mean()) for x, y in loader)


def build():
    return nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.2), nn.Linear(32, 4))


def fit_with_average(loader, val_loader, epochs):
    model = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.2), nn.Linear(32, 4))
    average = WeightAverage(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        train_epoch(model, loader, opt, average)
        evaluate(model, val_loader)
        # ok: TL203
        evaluate(average, val_loader)


def fit_with_view(loader, val_loader, epochs):
    model = build()
    model.train()
    view = SharedView(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        train_steps(model, loader, opt)
        # todo-expect: TL203
        evaluate(view, val_loader)
