import torch.nn.functional as F


def batch_loss(model, x, y):
    return F.cross_entropy(model(x), y)
