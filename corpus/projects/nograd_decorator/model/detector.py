import torch as t
from torch import nn

from utils.wrappers import logged, no_grad_call


def nograd(f):
    def new_f(*args, **kwargs):
        with t.no_grad():
            return f(*args, **kwargs)

    return new_f


class Detector(nn.Module):
    def __init__(self, n_class=21):
        super().__init__()
        self.head = nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.5), nn.Linear(32, n_class))

    def forward(self, x):
        return self.head(x)

    @nograd
    def predict(self, imgs):
        self.eval()
        labels = []
        for img in imgs:
            # ok: TL102
            scores = self(img[None])
            labels.append(scores.argmax(1).item())
        self.train()
        return labels

    @no_grad_call
    def predict_batch(self, batch):
        self.eval()
        # ok: TL102
        scores = self(batch)
        self.train()
        return scores.argmax(1).tolist()

    @logged
    def predict_logged(self, batch):
        self.eval()
        # expect: TL102
        scores = self(batch)
        self.train()
        return scores.argmax(1).tolist()
