"""Shapes the engine matches without tree-sitter (analyzer/rules/precheck.h):
a field that holds two nodes (`d[i, j]` has two subscripts) is ambiguous
there, and tree-sitter matches the shape at that node instead. The
findings are the same either way.
"""
import torch
import torch.nn.functional as F


def train(model, loader, opt):
    history = {}
    grid = torch.zeros(4, 4)
    for step, (x, y) in enumerate(loader):
        out = model(x)
        loss = F.cross_entropy(out, y)
        # Two subscripts: matched by tree-sitter.
        # expect: TL101
        history[step, 0] = loss
        # expect: TL101
        grid[step, 1] = loss
        # One subscript: matched natively.
        # expect: TL101
        history[step] = loss
        # A string key: the pattern's own test keeps it out.
        # ok: TL101
        history["last"] = loss
        loss.backward()
        opt.step()
        opt.zero_grad()
    return history
