# A model's forward collecting outputs level by level (a list of lists it
# returns, as detection heads do): nothing is kept across training steps.
import torch
from torch import nn


class Align(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(4, 4, 3)

    def forward(self, x):
        return self.conv(x)


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.align = Align()
        self.sizes = [1, 2]
        self.kept = []

    def forward(self, feats):
        pred_masks = []
        for mask_feat in feats:
            cur_masks = []
            for _ in self.sizes:
                cur_mask = self.align(mask_feat)
                # ok: TL101
                cur_masks.append(cur_mask)
            pred_masks.append(cur_masks)
        return pred_masks

    def remember(self, feats):
        for mask_feat in feats:
            # expect: TL106
            self.kept.append(self.align(mask_feat))
