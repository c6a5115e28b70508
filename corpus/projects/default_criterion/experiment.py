import torch.nn as nn
from torch.nn import CrossEntropyLoss

import losses


class Experiment:
    def __init__(self, name, loss_reduction="mean", loss=CrossEntropyLoss(reduction="sum")):
        self.name = name
        self.criterion = losses.TripletLoss(loss_reduction=loss_reduction, loss=loss)
        self.raw = losses.RawLoss(loss=loss)
        self.given = losses.GivenLoss(nn.MSELoss())


def get_experiment(problem):
    if problem == "qap":
        return Experiment
    raise ValueError(problem)
