import torch
import torch.nn as nn


class Client:
    def __init__(self, batches, lr):
        self.batches = batches
        self.lr = lr
        self.criterion = nn.CrossEntropyLoss()

    def local_round(self, net):
        opt = torch.optim.SGD(net.parameters(), lr=self.lr)
        for x, y in self.batches:
            opt.zero_grad()
            scores = net(x)
            # expect: TL208
            loss = self.criterion(scores, y)
            loss.backward()
            opt.step()
        return net.state_dict()

    def local_round_scores(self, net):
        opt = torch.optim.SGD(net.parameters(), lr=self.lr)
        for x, y in self.batches:
            opt.zero_grad()
            # ok: TL208
            loss = self.criterion(net(x), y)
            loss.backward()
            opt.step()
        return net.state_dict()
