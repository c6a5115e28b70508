import torch


def prepare(device):
    x = torch.zeros(4)
    batch = torch.ones(2)
    x = x.to(device)
    batch = batch.cuda(non_blocking=True)
    x = x.half()  # a comment stays
    return x, batch
