import torch
import torch.nn as nn
import torch.nn.functional as F


class Blender(nn.Module):
    def __init__(self, ch=16):
        super().__init__()
        self.enc = nn.Conv2d(6, ch, 3, padding=1)
        self.dec = nn.Conv2d(ch, 3, 3, padding=1)

    def forward(self, pair):
        return torch.sigmoid(self.dec(F.relu(self.enc(pair))))


class Runner:
    def __init__(self, device="cuda"):
        self.net = Blender().to(device)
        self.opt = torch.optim.AdamW(self.net.parameters(), lr=1e-4)

    def step(self, frames, target, lr=1e-4, training=True):
        for group in self.opt.param_groups:
            group["lr"] = lr
        if training:
            self.net.train()
        else:
            self.net.eval()
        out = self.net(frames)
        l1 = (out - target).abs().mean()
        if training:
            self.opt.zero_grad()
            l1.backward()
            self.opt.step()
        return out, {"l1": l1, "out": out}
