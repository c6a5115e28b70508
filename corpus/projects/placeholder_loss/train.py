import torch
import torch.nn as nn

from tools.log import EpochLog


class PairTrainer:
    def __init__(self, config):
        self.config = config
        self.gen = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
        self.critic = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
        self.opt_g = torch.optim.Adam(self.gen.parameters(), lr=2e-4)
        self.opt_c = torch.optim.Adam(self.critic.parameters(), lr=2e-4)
        self.recon = nn.L1Loss()
        self.log = EpochLog()

    def _critic_step(self, fake, real):
        if self.config["critic"] == "none":
            return [0]
        self.opt_c.zero_grad()
        loss = self.critic(fake.detach()).mean() - self.critic(real).mean()
        loss.backward()
        self.opt_c.step()
        return loss

    def _critic_number(self, fake, real):
        if self.config["critic"] == "none":
            return [0.0]
        self.opt_c.zero_grad()
        loss = self.critic(fake.detach()).mean() - self.critic(real).mean()
        loss.backward()
        self.opt_c.step()
        return [loss.item()]

    def epoch(self, loader):
        self.log.reset()
        for noisy, clean in loader:
            fake = self.gen(noisy)
            critic_loss = self._critic_step(fake, clean)
            self.opt_g.zero_grad()
            loss_g = self.recon(fake, clean) - self.critic(fake).mean()
            loss_g.backward()
            self.opt_g.step()
            # expect: TL101
            self.log.record(loss_g.item(), critic_loss[0])
        return self.log.means()

    def epoch_numbers(self, loader):
        self.log.reset()
        for noisy, clean in loader:
            fake = self.gen(noisy)
            critic_loss = self._critic_number(fake, clean)
            self.opt_g.zero_grad()
            loss_g = self.recon(fake, clean) - self.critic(fake).mean()
            loss_g.backward()
            self.opt_g.step()
            # ok: TL101
            self.log.record(loss_g.item(), critic_loss[0])
        return self.log.means()
