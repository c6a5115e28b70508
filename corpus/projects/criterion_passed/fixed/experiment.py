import torch
import torch.nn as nn

import losses


def train(model, loader):
    criterion = losses.PairLoss(loss=nn.MSELoss())
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
