import torch

from probes import ActivationProbe, frozen_logits


def top_classes(model, batch):
    probe = ActivationProbe(model)
    scores = probe.scores(batch)
    return scores.argmax(dim=1).tolist()


def confidence(model, batch):
    logits = frozen_logits(model, batch)
    return torch.softmax(logits, dim=1).max(dim=1).values.mean().item()
