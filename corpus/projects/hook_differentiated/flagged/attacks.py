import torch


class Auditor:
    """Reports what a hook predicts for a batch of inputs."""

    def __init__(self, model):
        self.model = model

    def report(self, x):
        predicted = self.logits(x).argmax(dim=1)
        return torch.bincount(predicted).tolist()

    def logits(self, x):
        return self.model(x)
