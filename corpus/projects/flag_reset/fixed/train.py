import torch
import torch.nn as nn

from base_trainer import BaseTrainer
from grads import reset_grads


class Trainer(BaseTrainer):
    def __init__(self, model, opt, use_amp):
        super().__init__(model, opt)
        self.use_amp = use_amp
        self.scaler = torch.amp.GradScaler("cuda")

    def fit(self, loader):
        for x, y in loader:
            if self.use_amp:
                self.clear()
                with torch.autocast("cuda"):
                    loss = nn.functional.cross_entropy(self.model(x), y)
                self.scaler.scale(loss).backward()
                # ok: TL201
                self.scaler.step(self.opt)
                self.scaler.update()
            else:
                reset_grads(self.opt)
                loss = nn.functional.cross_entropy(self.model(x), y)
                loss.backward()
                # ok: TL201
                self.opt.step()


def main(loader, amp):
    model = nn.Linear(3, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda") if amp else None
    for x, y in loader:
        reset_grads(opt)
        loss = nn.functional.cross_entropy(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            # ok: TL201
            scaler.step(opt)
            scaler.update()
        else:
            loss.backward()
            # ok: TL201
            opt.step()
