import torch
import torch.nn.functional as F


def scores(x, w):
    # Flagged, but no mechanical rewrite: no dimension (logsumexp needs one),
    # keepdim, a dtype, a sum of exponentials made through a name, softmax.
    a = torch.log(torch.sum(torch.exp(x)))
    b = torch.log(torch.sum(torch.exp(x), 1, keepdim=True))
    c = torch.log(torch.sum(torch.exp(x), dtype=torch.float64))
    s = torch.exp(x @ w).sum(-1)
    d = torch.log(s)
    e = torch.log(F.softmax(x, dim=1))
    return a, b, c, d, e
