"""TL203 eval-mode-not-restored: a step function shared by training and evaluation.

One function runs both the training step and the evaluation step, a flag
deciding which: `train=True` from the training loop puts the model in train
mode, backpropagates and steps the optimizer; `train=False` from the
validation loop puts it in eval mode and runs the forward under no_grad.
The validation loop calls a function that can backpropagate and step, but
with `train=False` that code never runs: it is no training loop, and the
epoch loop around both switches the model back each epoch through the
`train=True` call (no finding). The twins switch the model to eval mode
when `train` is false and never back to train mode: the next epoch trains
in eval mode (a finding at the `train=False` call).
"""
import torch
import torch.nn.functional as F
from torch import nn


def make_model():
    return nn.Sequential(nn.Linear(10, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 2))


def shared_step(model, batch, optimizer, train):
    x, y = batch
    if train:
        model.train()
    else:
        model.eval()
    if train:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()
    with torch.no_grad():
        out = model(x)
    return (out.argmax(1) == y).float().mean().item()


def fit_shared(train_loader, val_loader):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        for batch in train_loader:
            shared_step(model, batch, optimizer, train=True)
        for batch in val_loader:
            # ok: TL203
            shared_step(model, batch, optimizer, train=False)


def switch_off_only(model, batch, optimizer, train):
    x, y = batch
    if not train:
        model.eval()
    if train:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        return loss.item()
    with torch.no_grad():
        out = model(x)
    return (out.argmax(1) == y).float().mean().item()


def fit_switch_off_only(train_loader, val_loader):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(10):
        for batch in train_loader:
            switch_off_only(model, batch, optimizer, train=True)
        for batch in val_loader:
            # expect: TL203
            switch_off_only(model, batch, optimizer, train=False)


def run_batch(model, batch, optimizer, train):
    x, y = batch
    if not train:
        model.eval()
    with torch.set_grad_enabled(train):
        loss = F.cross_entropy(model(x), y)
    if train:
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return loss.item()


def fit_train_each_epoch(train_loader, val_loader):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        model.train()
        for batch in train_loader:
            run_batch(model, batch, optimizer, train=True)
        for batch in val_loader:
            # ok: TL203
            run_batch(model, batch, optimizer, train=False)


def fit_train_once(train_loader, val_loader):
    model = make_model()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    model.train()
    for epoch in range(10):
        for batch in train_loader:
            run_batch(model, batch, optimizer, train=True)
        for batch in val_loader:
            # expect: TL203
            run_batch(model, batch, optimizer, train=False)
