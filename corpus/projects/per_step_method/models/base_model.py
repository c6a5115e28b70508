import torch
import torch.nn as nn


class BaseModel:
    def __init__(self, opt):
        self.net = nn.Linear(opt.width, 2)
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=opt.lr)

    def set_input(self, data):
        self.x, self.y = data

    def forward(self):
        self.out = self.net(self.x)

    def backward(self):
        self.loss = self.criterion(self.out, self.y)
        self.loss.backward()

    def optimize_parameters(self):
        self.forward()
        self.backward()
        # expect: TL201
        self.optimizer.step()
