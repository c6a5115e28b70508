import torch


def prepare(device):
    x = torch.zeros(4)
    batch = torch.ones(2)
    x.to(device)
    batch.cuda(non_blocking=True)
    x.half()  # a comment stays
    return x, batch
