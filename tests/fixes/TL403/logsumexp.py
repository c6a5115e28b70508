import torch
import torch as T


def log_partition(scores):
    # over the class dimension, positional and keyword
    a = torch.log(torch.sum(torch.exp(scores), 1))
    b = torch.log(torch.sum(torch.exp(scores), dim=-1))
    c = T.log(T.sum(T.exp(scores[:, 1:]), dim=(0, 1)))
    return a + b + c


def free_energy(logits, temperature):
    # method chains
    e = (logits / temperature).exp().sum(1).log()
    f = logits.exp().sum(dim=-1).log()
    return -temperature * e + f
