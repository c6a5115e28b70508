import torch
import torch.nn as nn


class GanModel:
    def __init__(self, opt):
        self.netG = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
        self.netD = nn.Sequential(nn.Linear(8, 1), nn.Dropout(0.1))
        self.optG = torch.optim.Adam(self.netG.parameters())
        self.optD = torch.optim.Adam(self.netD.parameters())

    def optimize_parameters(self, x):
        self.optD.zero_grad()
        self.netD(self.netG(x).detach()).mean().backward()
        self.optD.step()
        self.optG.zero_grad()
        self.netD.eval()
        (-self.netD(self.netG(x))).mean().backward()
        self.optG.step()


class RestoringModel(GanModel):
    def optimize_parameters(self, x):
        self.netD.train()
        super().optimize_parameters(x)
