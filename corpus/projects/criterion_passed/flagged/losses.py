import torch
import torch.nn as nn


class PairLoss(nn.Module):
    def __init__(self, weight=1.0, loss=nn.MSELoss()):
        super().__init__()
        self.weight = weight
        self.loss = loss

    def forward(self, scores, target):
        probs = torch.softmax(scores, -1)
        # expect: TL208
        return self.weight * self.loss(probs, target)


class TokenLoss(nn.Module):
    def __init__(self, loss=nn.CrossEntropyLoss()):
        super().__init__()
        self.loss = loss

    def forward(self, logits, target):
        # ok: TL208
        return self.loss(logits, target)
