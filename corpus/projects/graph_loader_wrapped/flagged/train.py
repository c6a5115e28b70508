import torch

from molnet.data import build_loaders
from molnet.loop import fit_counted, fit_one_epoch


def main(model, train_graphs, test_graphs, epochs=50, verbose=True):
    train_loader, test_loader = build_loaders(train_graphs, test_graphs, 32)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        fit_one_epoch(train_loader, model, opt, verbose)
        fit_counted(train_loader, model, opt)
    return test_loader
