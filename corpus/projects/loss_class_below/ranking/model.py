import torch
import torch.nn.functional as F
from torch.nn.modules.loss import _Loss


class ItemScorer(torch.nn.Module):
    """Scores items by an embedding; its loss is a criterion class of this
    module defined below it and built inside a method."""

    def __init__(self, items, dim=8):
        super().__init__()
        self.table = torch.nn.Embedding(items, dim)

    def forward(self, ids):
        return self.table(ids).sum(-1)

    def ranking_loss(self, better, worse):
        criterion = MarginRank(1e-4)
        return criterion(better, worse, self.table.weight)

    def ranking_number(self, better, worse):
        return float(self.ranking_loss(better, worse))


class MarginRank(_Loss):
    def __init__(self, weight_decay):
        super().__init__()
        self.weight_decay = weight_decay

    def forward(self, better, worse, table):
        gap = F.logsigmoid(better - worse).mean()
        return -gap + self.weight_decay * table.norm()
