import torch
from pair import Pair


def encode(model, loader):
    model.val_start()
    outs = []
    with torch.no_grad():
        for a, b in loader:
            outs.append(model.img(a))
    return outs


def evaluate_saved(loader):
    model = Pair()
    return encode(model, loader)
