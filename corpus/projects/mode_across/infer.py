import torch
import torch.nn as nn


def run(net: nn.Module, x):
    # expect: TL102
    return net(x).argmax(1)


def run_guarded(net: nn.Module, x):
    with torch.no_grad():
        # ok: TL102
        return net(x).argmax(1)


def run_train(net: nn.Module, x):
    # ok: TL102
    return net(x).argmax(1)


class Scorer:
    def __init__(self, threshold):
        self.threshold = threshold

    def score(self, net: nn.Module, x):
        # expect: TL102
        return net(x).sigmoid() > self.threshold


def evaluating(net):
    net.eval()
    print("evaluating", type(net).__name__)


def training(net):
    net.train()
    print("training", type(net).__name__)
