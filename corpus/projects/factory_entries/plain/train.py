import torch

from models import MODELS, get_model
from utils import fit, fit_one_epoch


def main(loader, arch):
    # the model is the first element of the tuple the factory returns
    model, optimizer = get_model(arch, 0.1)
    fit(model, optimizer, loader, 3)

    # the model is made by an entry of another module's dict of factories
    other = MODELS[arch]()
    other_opt = torch.optim.SGD(other.parameters(), lr=0.1)
    for _ in range(3):
        fit_one_epoch(other, other_opt, loader)
