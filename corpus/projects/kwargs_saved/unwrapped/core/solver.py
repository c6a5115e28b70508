import torch
import torch.nn.functional as F

from core.checkpoint import CheckpointIO
from core.networks import build_nets


class Solver:
    def __init__(self, checkpoint_dir):
        self.nets, self.nets_ema = build_nets()
        self.optims = {
            "generator": torch.optim.Adam(self.nets.generator.parameters(), lr=1e-4),
            "discriminator": torch.optim.Adam(self.nets.discriminator.parameters(), lr=1e-4),
        }
        self.ckptios = [
            CheckpointIO(checkpoint_dir + "/{:06d}_nets.ckpt", **self.nets),
            CheckpointIO(checkpoint_dir + "/{:06d}_nets_ema.ckpt", **self.nets_ema),
            CheckpointIO(checkpoint_dir + "/{:06d}_optims.ckpt", **self.optims),
        ]

    def train(self, loader):
        gen, disc = self.nets.generator, self.nets.discriminator
        for step, (real, z) in enumerate(loader):
            real, z = real.cuda(), z.cuda()
            d_loss = F.softplus(disc(gen(z).detach())).mean() + F.softplus(-disc(real)).mean()
            self.optims["discriminator"].zero_grad()
            d_loss.backward()
            self.optims["discriminator"].step()
            g_loss = F.softplus(-disc(gen(z))).mean()
            self.optims["generator"].zero_grad()
            g_loss.backward()
            self.optims["generator"].step()
            if step % 1000 == 0:
                for ckptio in self.ckptios:
                    ckptio.save(step)
