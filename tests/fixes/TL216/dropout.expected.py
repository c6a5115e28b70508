import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, dim, p=0.1):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.p = p

    def forward(self, x):
        h = F.dropout(self.fc(x), self.p, training=self.training)
        h = F.dropout(h, p=self.p, inplace=False, training=self.training,)
        return h
