"""A method whose forward runs a model that one of its call sites hands it
in eval mode (after `train_mode()` puts the frozen encoder in eval mode),
while another site's mode cannot be told (a validation loop after a loop
over a loader, in a method nothing in the file calls): on that path it
runs after `.eval()` (TL102) when its result reaches no backward and no
caller can differentiate it (detached, stored for a loss; returned to
callers that all discard it). A forward whose result the method returns to
a caller the analysis does not see, which may differentiate it, is silent
(corpus/rules/TL102-eval-without-no-grad.py, `attr_predict`).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_encoder():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Linear(8, 8))


class MatchTrainer:
    def __init__(self, movement_encoder, motion_encoder):
        self.movement_encoder = movement_encoder
        self.motion_encoder = motion_encoder
        self.opt = torch.optim.Adam(motion_encoder.parameters())

    def train_mode(self):
        self.motion_encoder.train()
        self.movement_encoder.eval()

    def forward(self, motions):
        # expect: TL102
        movements = self.movement_encoder(motions).detach()
        self.embedding = self.motion_encoder(movements)

    def features(self, motions):
        # expect: TL102
        return self.movement_encoder(motions)

    def backward(self, target):
        self.loss = F.mse_loss(self.embedding, target)
        return self.loss

    def train(self, loader, val_loader):
        for motions, target in loader:
            self.train_mode()
            self.forward(motions)
            # expect: TL102
            self.features(motions)
            self.opt.zero_grad()
            self.backward(target).backward()
            self.opt.step()
        with torch.no_grad():
            for motions, target in val_loader:
                self.forward(motions)
                self.features(motions)
                print(self.backward(target).item())
