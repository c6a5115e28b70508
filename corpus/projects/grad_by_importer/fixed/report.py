import torch

from probes import ActivationProbe, frozen_logits


def saliency(model, batch):
    probe = ActivationProbe(model)
    batch = batch.clone().requires_grad_(True)
    scores = probe.scores(batch)
    grad, = torch.autograd.grad(scores.max(dim=1).values.sum(), batch)
    return grad.abs()


def input_step(model, batch, target, step=0.01):
    batch = batch.clone().requires_grad_(True)
    logits = frozen_logits(model, batch)
    torch.nn.functional.cross_entropy(logits, target).backward()
    return batch + step * batch.grad.sign()
