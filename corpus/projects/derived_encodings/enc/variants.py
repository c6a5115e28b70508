import torch

from enc.sinusoid import Sinusoid, Switchable


class Whisper(Sinusoid):
    def __init__(self, d_model, dropout_rate, max_len=1500):
        super().__init__(d_model, dropout_rate, max_len)
        self.scale = 1.0
        delattr(self, "table")
        self.register_buffer("table", torch.zeros(1, max_len, d_model))


class Paraformer(Whisper):
    def __init__(self, depth, d_model, dropout_rate=0.1, max_len=1500):
        super().__init__(depth, dropout_rate, max_len)
        self.scale = d_model**0.5


class Inherited(Paraformer):
    def forward(self, x):
        return super().forward(x).flip(1)


class Projected(Switchable):
    def __init__(self, dim, project):
        super().__init__(dim, project)
        self.gain = 2


class AlwaysProjected(Switchable):
    def __init__(self, dim):
        super().__init__(dim, project=True)


class NeverProjected(Switchable):
    def __init__(self, dim):
        super().__init__(dim, project=False)
