import torch
from torch import nn


class Pair(object):
    def __init__(self):
        self.img = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))
        self.txt = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.2))
        self.opt = torch.optim.Adam(list(self.img.parameters()) + list(self.txt.parameters()))

    def train_start(self):
        self.img.train()
        self.txt.train()

    def val_start(self):
        self.img.eval()
        self.txt.eval()

    def step(self, a, b):
        loss = (self.img(a) - self.txt(b)).pow(2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
