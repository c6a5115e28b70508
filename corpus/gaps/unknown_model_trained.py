"""A model of unknown type (a factory of another library) that is trained.

`build_model` comes from a library torchlint cannot read, so the model's
class is unknown. Handing its parameters to an optimizer trains it, and a
module is in train mode when it is built: an evaluation helper that calls
`.eval()` inside the epoch loop, with no `.train()` anywhere, leaves every
later epoch training in eval mode (TL203). The twins: the loop switches the
model back, the helper restores the mode itself, and a frozen model of
unknown type that no optimizer updates (a feature extractor) may stay in
eval mode.
"""
import torch
import torch.nn.functional as F
from modelzoo import build_model, build_backbone


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


def evaluate_and_restore(model, loader):
    model.eval()
    with torch.no_grad():
        total = sum(F.cross_entropy(model(x), y).item() for x, y in loader)
    model.train()
    return total


def train_never_switched_back(loader, val_loader, epochs):
    model = build_model("resnet18")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        # expect: TL203
        evaluate(model, val_loader)


def train_switched_back(loader, val_loader, epochs):
    model = build_model("resnet18")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        # ok: TL203
        evaluate(model, val_loader)


def train_helper_restores(loader, val_loader, epochs):
    model = build_model("resnet18")
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        # ok: TL203
        evaluate_and_restore(model, val_loader)


def train_head_on_frozen_features(loader, val_loader, epochs):
    backbone = build_backbone("resnet18")
    head = torch.nn.Linear(512, 10)
    opt = torch.optim.SGD(head.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in loader:
            with torch.no_grad():
                feats = backbone(x)
            loss = F.cross_entropy(head(feats), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        # ok: TL203
        evaluate(backbone, val_loader)
