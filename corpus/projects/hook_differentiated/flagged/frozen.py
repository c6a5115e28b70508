import torch.nn as nn

from attacks import Auditor


class FrozenAuditor(Auditor):
    def __init__(self, width=16, classes=4):
        super().__init__(None)
        self.net = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Dropout(0.2), nn.Linear(width, classes))

    def logits(self, x):
        self.net.eval()
        # expect: TL102
        return self.net(x)
