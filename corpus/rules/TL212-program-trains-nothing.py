"""TL212 evaluation-in-train-mode: a program that trains nothing.

An evaluation pass is the validation or test pass of a program that trains
the model. This file trains nothing: it checks that two freshly built
copies of a model (with batch norm, left in train mode) agree after one is
loaded from the other's state dict, a test of the loading code, not an
evaluation of a trained model. Nothing to report.
"""
import torch
import torch.nn as nn


def test_copies_agree():
    model = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
    loaded = nn.Sequential(nn.Linear(8, 8), nn.BatchNorm1d(8), nn.Linear(8, 2))
    loaded.load_state_dict(model.state_dict())
    x = torch.randn(4, 8)
    with torch.no_grad():
        for _ in range(2):
            # ok: TL212
            a = model(x)
            # ok: TL212
            b = loaded(x)
            assert torch.allclose(a, b)
