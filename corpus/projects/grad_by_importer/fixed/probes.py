import torch.nn as nn


class ActivationProbe:
    """Reads a model's outputs for inputs its caller chooses."""

    def __init__(self, model: nn.Module):
        self.model = model
        self.model.eval()

    def scores(self, inputs):
        # ok: TL102
        return self.model(inputs)


def frozen_logits(model, inputs):
    model.eval()
    # ok: TL102
    return model(inputs)
