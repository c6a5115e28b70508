"""TL106 tensor-kept-with-graph: constant arguments select a helper's branches.

A helper whose flag every call site passes as the same constant, or leaves
to its default, runs only the branch that constant selects: the other
branch is code no run reaches, and what it would keep is not kept. The
`ok` annotations sit before appends that only ever keep outputs made
under `no_grad`. Where the flag is not one constant at every call site (a
value read from the command line, two call sites that disagree, a default
one call overrides), both branches may run and the output of the forward
run with gradients on is kept with its graph: an `expect` annotation.
A flag passed on through another function counts as that function's
callers pass it.
"""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


def predict_default(model, loader, keep_graph=False):
    preds = []
    for x in loader:
        if keep_graph:
            out = model(x)
        else:
            with torch.no_grad():
                out = model(x)
        # ok: TL106
        preds.append(out)
    return preds


def predict_overridden(model, loader, keep_graph=False):
    preds = []
    for x in loader:
        if keep_graph:
            out = model(x)
        else:
            with torch.no_grad():
                out = model(x)
        # expect: TL106
        preds.append(out)
    return preds


def predict_option(model, loader, keep_graph):
    preds = []
    for x in loader:
        if keep_graph:
            out = model(x)
        else:
            with torch.no_grad():
                out = model(x)
        # expect: TL106
        preds.append(out)
    return preds


def predict_mixed(model, loader, mode):
    preds = []
    for x in loader:
        if mode == "inference":
            with torch.no_grad():
                out = model(x)
        else:
            out = model(x)
        # expect: TL106
        preds.append(out)
    return preds


def predict_named(model, loader, mode="train"):
    preds = []
    for x in loader:
        if mode not in ("inference", "test"):
            out = model(x)
        else:
            with torch.no_grad():
                out = model(x)
        # ok: TL106
        preds.append(out)
    return preds


def predict_passed(model, loader, keep_graph):
    preds = []
    for x in loader:
        if not keep_graph:
            with torch.no_grad():
                out = model(x)
        else:
            out = model(x)
        # ok: TL106
        preds.append(out)
    return preds


def evaluate(model, loader, keep):
    return predict_passed(model, loader, keep)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--keep", action="store_true")
    args = parser.parse_args()
    model = Net()
    loader = DataLoader(torch.randn(64, 16), batch_size=8)
    predict_default(model, loader)
    predict_overridden(model, loader, keep_graph=True)
    predict_option(model, loader, args.keep)
    predict_mixed(model, loader, "inference")
    predict_mixed(model, loader, mode="train")
    predict_named(model, loader, mode="test")
    evaluate(model, loader, False)


if __name__ == "__main__":
    main()
