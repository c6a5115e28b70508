import torch.nn as nn


class ProbNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = nn.Linear(width, 32)
        self.out = nn.Linear(32, 10)
        self.probs = nn.Softmax(dim=1)

    def forward(self, x):
        return self.probs(self.out(self.hidden(x).relu()))


class ScoreNet(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.hidden = nn.Linear(width, 32)
        self.out = nn.Linear(32, 10)

    def forward(self, x):
        return self.out(self.hidden(x).relu())
