import torch.nn.functional as F
from torch import nn


class MatrixFactorization(nn.Module):
    def __init__(self, n_users, n_items, dim=64):
        super().__init__()
        self.user_embedding = nn.Embedding(n_users, dim)
        self.item_embedding = nn.Embedding(n_items, dim)

    def forward(self, user, item):
        return self.user_embedding(user), self.item_embedding(item)

    def calculate_loss(self, batch):
        user_e, pos_e = self.forward(batch["user"], batch["pos"])
        neg_e = self.item_embedding(batch["neg"])
        diff = (user_e * pos_e).sum(-1) - (user_e * neg_e).sum(-1)
        return -F.logsigmoid(diff).mean()

    def predict(self, batch):
        user_e, item_e = self.forward(batch["user"], batch["item"])
        return (user_e * item_e).sum(-1)
