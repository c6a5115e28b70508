import torch
from torch import load


def restore(path):
    a = torch.load(path, weights_only=True)
    b = torch.load(path, weights_only=True)
    c = load(path, map_location="cpu", weights_only=True)
    return a, b, c
