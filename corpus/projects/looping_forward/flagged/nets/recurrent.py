import torch
import torch.nn as nn


class Tracker(nn.Module):
    """Runs its cell over the time steps of the sequence: the loop of its
    forward is the model's own computation."""

    def __init__(self, size):
        super().__init__()
        self.embed = nn.Linear(2, size)
        self.drop = nn.Dropout(0.1)
        self.cell = nn.GRUCell(size, size)
        self.out = nn.Linear(size, 2)

    def forward(self, seq):
        h = torch.zeros(seq.size(1), self.cell.hidden_size, device=seq.device)
        outs = []
        for t in range(seq.size(0)):
            h = self.cell(self.drop(self.embed(seq[t])), h)
            outs.append(self.out(h))
        return torch.stack(outs)
