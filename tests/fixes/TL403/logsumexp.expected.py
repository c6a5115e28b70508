import torch
import torch as T


def log_partition(scores):
    # over the class dimension, positional and keyword
    a = torch.logsumexp(scores, 1)
    b = torch.logsumexp(scores, dim=-1)
    c = T.logsumexp(scores[:, 1:], dim=(0, 1))
    return a + b + c


def free_energy(logits, temperature):
    # method chains
    e = (logits / temperature).logsumexp(1)
    f = logits.logsumexp(dim=-1)
    return -temperature * e + f
