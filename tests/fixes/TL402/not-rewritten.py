import torch
from torch.cuda.amp import autocast


def train(model, loader):
    for x in loader:
        # A positional argument would become torch.amp.autocast's dtype.
        with torch.cuda.amp.autocast(True):
            model(x)
        # A name imported from torch.cuda.amp: the import would need rewriting too.
        with autocast():
            model(x)
