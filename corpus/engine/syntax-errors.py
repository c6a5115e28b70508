"""Syntax errors: TL000 points at each, and the code that parses is still
analysed (the training loop after the broken function is flagged)."""
import torch


def broken(x):
    # expect: TL000
    return x +* 2


def broken_star(x):
    # A starred operand that is not valid Python either: still reported.
    # expect: TL000
    return x, *(x 2)


def train(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()
