import torch

from models import GanModel


def main(opt, loader):
    torch.manual_seed(opt.seed)
    model = GanModel(opt)
    for x in loader:
        # expect: TL203
        model.optimize_parameters(x)
