import torch.nn as nn


def make_criterion():
    return nn.CrossEntropyLoss()
