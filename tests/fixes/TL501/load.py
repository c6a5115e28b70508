import torch
from torch import load


def restore(path):
    a = torch.load(path)
    b = torch.load(path, weights_only=False)
    c = load(path, map_location="cpu")
    return a, b, c
