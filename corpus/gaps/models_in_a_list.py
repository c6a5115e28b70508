"""Module modes switched through a list of models, and a module of buffers only.

Several small regressors with batch norm are trained side by side, kept in a
list. Each evaluation puts every one of them in eval mode with a
comprehension (or a loop) over the list and then runs them, again through
the list: their forwards record graphs with gradient tracking on and no
backward (TL102). The twins: the same evaluation under no_grad, and the
list switched back to train mode before the next training step.

A positional encoding that holds only buffers and constants computed from
a coordinate grid (no parameter, no layer with one), put in eval mode and
run on a random tensor, records no graph: nothing in it requires grad. The
twin holds a linear layer and records one. So does a regressor in eval mode
run on slices of a constant batch; frozen first (`requires_grad_(False)`),
it records none: a slice requires grad only when its tensor does.
"""
import math

import torch
import torch.nn as nn


class Regressor(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = nn.Linear(1, width)
        self.norm = nn.BatchNorm1d(width)
        self.out = nn.Linear(width, 1)

    def forward(self, x):
        return self.out(torch.relu(self.norm(self.hidden(x))))


def train_side_by_side(inputs, targets, epochs=3):
    regressors = [Regressor(8), Regressor(16), Regressor(32)]
    optimizers = [torch.optim.SGD(r.parameters(), lr=0.05) for r in regressors]
    errors = []
    for epoch in range(epochs):
        [r.train() for r in regressors]
        for reg, opt in zip(regressors, optimizers):
            loss = ((reg(inputs) - targets) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        [r.eval() for r in regressors]
        # expect: TL102
        outputs = [r(inputs) for r in regressors]
        errors.append([((o - targets) ** 2).mean().item() for o in outputs])
    return errors


def train_side_by_side_no_grad(inputs, targets, epochs=3):
    regressors = [Regressor(8), Regressor(16)]
    optimizers = [torch.optim.SGD(r.parameters(), lr=0.05) for r in regressors]
    errors = []
    for epoch in range(epochs):
        [r.train() for r in regressors]
        for reg, opt in zip(regressors, optimizers):
            loss = ((reg(inputs) - targets) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        [r.eval() for r in regressors]
        with torch.no_grad():
            outputs = [r(inputs) for r in regressors]
        errors.append([((o - targets) ** 2).mean().item() for o in outputs])
    return errors


def train_then_compare(inputs, targets, epochs=3):
    regressors = [Regressor(8), Regressor(16)]
    optimizers = [torch.optim.SGD(r.parameters(), lr=0.05) for r in regressors]
    for epoch in range(epochs):
        for reg, opt in zip(regressors, optimizers):
            reg.train()
            loss = ((reg(inputs) - targets) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    for reg in regressors:
        reg.eval()
    # expect: TL102
    return [reg(inputs) for reg in regressors]


def coordinate_grid(size):
    steps = torch.linspace(-1.0, 1.0, size)
    rows, cols = torch.meshgrid(steps, steps, indexing="ij")
    return {"row": rows, "col": cols, "radius": torch.sqrt(rows ** 2 + cols ** 2), "angle": torch.atan2(rows, cols)}


class GridEncoding(nn.Module):
    def __init__(self, size=9, falloff=1.0):
        super().__init__()
        self.size = size
        self.grid = coordinate_grid(size)
        self.mask = None
        if falloff:
            self.mask = torch.exp(-self.grid["radius"] ** 2 / falloff)
        basis = torch.stack([torch.cos(k * math.pi * self.grid["angle"]) for k in range(4)])
        self.register_buffer("basis", basis)
        self.channels: int = basis.shape[0]

    def forward(self, x):
        return torch.einsum("bchw,khw->bkchw", x, self.basis).flatten(1, 2)


class LearnedGridEncoding(GridEncoding):
    def __init__(self, size=9, falloff=1.0):
        super().__init__(size, falloff)
        self.mix = nn.Linear(size, size)

    def forward(self, x):
        return self.mix(super().forward(x))


def test_grid_encoding():
    patches = torch.rand(2, 3, 9, 9)
    encoding = GridEncoding(size=9)
    encoding.eval()
    # ok: TL102
    first = encoding(patches)
    again = GridEncoding(size=9).eval()
    assert torch.allclose(first, again(patches))


def test_learned_grid_encoding():
    patches = torch.rand(2, 3, 9, 9)
    encoding = LearnedGridEncoding(size=9)
    encoding.eval()
    # expect: TL102
    out = encoding(patches)
    assert out.shape[1] == 12


def test_frozen_regressor_on_slices():
    reg = Regressor(8).requires_grad_(False)
    reg.eval()
    batch = torch.tensor([[0.5], [1.5], [2.5]])
    head = reg(batch[:1])
    tail = reg(batch[1:])
    assert torch.allclose(torch.cat([head, tail]), reg(batch))


def test_regressor_on_slices():
    reg = Regressor(8)
    reg.eval()
    batch = torch.tensor([[0.5], [1.5], [2.5]])
    # expect: TL102
    head = reg(batch[:1])
    assert head.shape == (1, 1)


def test_frozen_in_one_statement():
    reg = Regressor(8)
    reg.eval().requires_grad_(False).to("cpu")
    batch = torch.tensor([[0.5], [1.5], [2.5]])
    head = reg(batch)
    assert head.shape == (3, 1)
