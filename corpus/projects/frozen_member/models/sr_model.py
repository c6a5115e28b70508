import torch
import torch.nn as nn


class SRModel:
    def __init__(self, opt):
        self.netG = nn.Sequential(nn.Conv2d(3, 3, 3, padding=1), nn.BatchNorm2d(3))
        self.vgg = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.vgg.requires_grad_(False)
        self.opt = torch.optim.Adam(self.netG.parameters(), lr=opt.lr)

    def optimize_parameters(self, lr_img, hr_img):
        self.opt.zero_grad()
        self.vgg.eval()
        sr = self.netG(lr_img)
        loss = nn.functional.l1_loss(self.vgg(sr), self.vgg(hr_img))
        loss.backward()
        self.opt.step()


class SwitchingModel:
    def __init__(self, opt):
        self.netG = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
        self.netD = nn.Sequential(nn.Linear(8, 1), nn.Dropout(0.1))
        self.optG = torch.optim.Adam(self.netG.parameters())
        self.optD = torch.optim.Adam(self.netD.parameters())

    def optimize_parameters(self, x):
        self.optG.zero_grad()
        self.netD.eval()
        (-self.netD(self.netG(x))).mean().backward()
        self.optG.step()
        self.netD.train()
        self.optD.zero_grad()
        self.netD(self.netG(x).detach()).mean().backward()
        self.optD.step()
