import torch
import torch.nn as nn

from stego.blocks import Critic


class StegoSystem:
    def __init__(self, channels, device):
        self.critic = Critic(channels).to(device)
        self.optimizer = torch.optim.Adam(self.critic.parameters())
        self.criterion = nn.BCEWithLogitsLoss()

    def train_on_batch(self, images, labels):
        self.critic.train()
        self.optimizer.zero_grad()
        loss = self.criterion(self.critic(images), labels)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def validate_on_batch(self, images, labels):
        with torch.no_grad():
            # expect: TL212
            scores = self.critic(images)
            loss = self.criterion(scores, labels)
        return loss.item()
