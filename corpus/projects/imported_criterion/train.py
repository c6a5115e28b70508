"""Scores a batch with the project's criterion (a cross_entropy: criteria.py)."""
import torch

from criteria import make_criterion


def score(model, x, y, fn=make_criterion()):
    probs = torch.softmax(model(x), dim=1)
    # expect: TL208
    return fn(probs, y)
