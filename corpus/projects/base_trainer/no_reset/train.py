import torch
import torch.nn as nn

from base_trainer import BaseTrainer


class Trainer(BaseTrainer):
    def fit(self, loader):
        for x, y in loader:
            self.clear()
            loss = nn.functional.cross_entropy(self.model(x), y)
            loss.backward()
            # expect: TL201
            self.opt.step()


def main(loader):
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    t = BaseTrainer(model, opt)
    for x, y in loader:
        t.clear()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        # expect: TL201
        opt.step()
