import torch
import torch.nn as nn


class TripletLoss(nn.Module):
    def __init__(self, loss_reduction="mean", loss=nn.CrossEntropyLoss(reduction="sum")):
        super().__init__()
        self.loss = loss
        self.loss_reduction = loss_reduction

    def forward(self, raw_scores, target_dummy):
        loss = 0
        outputs = torch.softmax(raw_scores, -1)
        for out in outputs:
            target = torch.arange(out.shape[0], device=out.device)
            # expect: TL208
            loss += self.loss(out, target)
        return loss / outputs.shape[0]


class RawLoss(nn.Module):
    def __init__(self, loss=nn.CrossEntropyLoss(reduction="sum")):
        super().__init__()
        self.loss = loss

    def forward(self, raw_scores, target_dummy):
        loss = 0
        for out in raw_scores:
            target = torch.arange(out.shape[0], device=out.device)
            # ok: TL208
            loss += self.loss(out, target)
        return loss


class GivenLoss(nn.Module):
    def __init__(self, loss):
        super().__init__()
        self.loss = loss

    def forward(self, raw_scores, target):
        # ok: TL208
        return self.loss(torch.softmax(raw_scores, -1), target)
