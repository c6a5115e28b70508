# A parameter a call leaves out holds its default; keyword arguments bind
# by name. The criterion a helper or a loss module takes as a parameter is
# what its callers pass, or its default where they pass nothing.
import torch
import torch.nn as nn


def rows_loss(scores, target, crit=nn.CrossEntropyLoss()):
    # expect: TL208
    return crit(torch.softmax(scores, 1), target)


def regression_loss(scores, target, crit=nn.CrossEntropyLoss()):
    # every caller passes a criterion of its own, by keyword or position
    # ok: TL208
    return crit(torch.softmax(scores, 1), target)


def scaled_loss(scores, target, crit=nn.CrossEntropyLoss()):
    # a caller passes a criterion of its own that nothing here knows
    # ok: TL208
    return crit(torch.softmax(scores, 1), target)


class RowLoss(nn.Module):
    def __init__(self, reduction="mean", loss=nn.CrossEntropyLoss(reduction="sum")):
        super().__init__()
        self.reduction = reduction
        self.loss = loss

    def forward(self, raw_scores, target):
        total = 0
        outputs = torch.softmax(raw_scores, -1)
        for out in outputs:
            # expect: TL208
            total += self.loss(out, target)
        return total


class PairLoss(nn.Module):
    def __init__(self, crit=nn.CrossEntropyLoss()):
        super().__init__()
        self.crit = crit

    def forward(self, raw_scores, target):
        # its only caller hands it a squared error
        # ok: TL208
        return self.crit(torch.softmax(raw_scores, -1), target)


class KeywordLoss(nn.Module):
    def __init__(self, scale, crit):
        super().__init__()
        self.scale = scale
        self.crit = crit

    def forward(self, raw_scores, target):
        # expect: TL208
        return self.crit(torch.softmax(raw_scores, -1), target) * self.scale


def train(model, loader, other_crit):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    pair = PairLoss(crit=nn.MSELoss())
    keyword = KeywordLoss(crit=nn.CrossEntropyLoss(), scale=2.0)
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        loss = rows_loss(out, y) + regression_loss(out, y, crit=nn.MSELoss())
        loss = loss + regression_loss(out, y, nn.MSELoss()) + scaled_loss(out, y, other_crit)
        loss = loss + pair(out, y) + keyword(out, y)
        loss.backward()
        opt.step()
