"""Program order: a name re-bound later in the function is a new value.

Training scripts reuse `out`, `loss` and `logits` for the training loop and
the evaluation loop that follows it. Whether an evaluation forward reaches a
backward depends on the value the backward reads where it runs, not on the
name: the training loop's backward reads the training loop's `loss`.
"""
import torch
from torch import nn
import torch.nn.functional as F


def build():
    model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 3))
    return model, torch.optim.Adam(model.parameters(), lr=1e-3)


def train_and_score(train_loader, val_loader, epochs=5):
    model, opt = build()
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            loss.backward()
            opt.step()
        model.eval()
        val_loss = 0.0
        for xb, yb in val_loader:
            # the same names, new values: nothing backpropagates these
            # expect: TL102
            out = model(xb)
            loss = F.cross_entropy(out, yb)
            val_loss += loss.item()
        print(epoch, val_loss / len(val_loader))


def train_and_score_quietly(train_loader, val_loader, epochs=5):
    model, opt = build()
    for epoch in range(epochs):
        model.train()
        for xb, yb in train_loader:
            opt.zero_grad()
            logits = model(xb)
            loss = F.cross_entropy(logits, yb)
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for xb, yb in val_loader:
                # ok: TL102
                logits = model(xb)
                loss = F.cross_entropy(logits, yb)
        print(epoch, loss.item())


def finetune_then_probe(model, opt, loader, probe_batch):
    # a forward in eval mode whose loss is backpropagated later (input
    # saliency): it needs its graph
    model.train()
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
    model.eval()
    xb, yb = probe_batch
    xb.requires_grad_(True)
    # ok: TL102
    loss = F.cross_entropy(model(xb), yb)
    loss.backward()
    return xb.grad.abs().mean(0)


def unrolled_pairs(model, opt, loader):
    # the loss of one batch is backpropagated at the start of the next
    # iteration (together with the current one): it reaches a backward
    model.eval()
    prev = None
    for xb, yb in loader:
        if prev is not None:
            opt.zero_grad()
            prev.backward()
            opt.step()
        # ok: TL102
        prev = F.cross_entropy(model(xb), yb)
