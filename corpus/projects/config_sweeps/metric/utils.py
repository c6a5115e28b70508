import torch

from metric.losses import ArcLoss

_DEFAULT_LOSS = ArcLoss(10, 2)


def lowest(dtype):
    return torch.finfo(dtype).min


def masked_logsumexp(x, keep=None, with_zero=True, dim=1):
    """Computed from its arguments only (and what it makes itself)."""
    if keep is not None:
        x = x.masked_fill(~keep, lowest(x.dtype))
    if with_zero:
        zeros = torch.zeros(x.size(0), 1, dtype=x.dtype, device=x.device)
        x = torch.cat([x, zeros], dim=dim)
    return torch.logsumexp(x, dim=dim, keepdim=True)


def default_loss(embeddings, labels):
    """Runs a loss object the module made once, at import."""
    return _DEFAULT_LOSS(embeddings, labels)
