import torch
import torch.nn as nn


class ResetModel:
    def __init__(self, opt):
        self.net = nn.Linear(opt.width, 2)
        self.optimizer = torch.optim.SGD(self.net.parameters(), lr=opt.lr)

    def step_once(self, x, y):
        loss = nn.functional.cross_entropy(self.net(x), y)
        loss.backward()
        # train_reset.py resets the gradients in its loop
        # ok: TL201
        self.optimizer.step()
