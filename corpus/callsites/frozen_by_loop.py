"""A module frozen by a loop over its own parameters records no graph: a
module that holds none is frozen whether the loop runs or not."""
import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Conv2d(8, 3, 1)

    def forward(self, x):
        return self.head(self.body(x))


def load_frozen(path):
    gen = Generator()
    gen.load_state_dict(torch.load(path))
    gen.eval()
    for param in gen.parameters():
        param.requires_grad_(False)
    return gen


def load_trainable(path):
    gen = Generator()
    gen.load_state_dict(torch.load(path))
    gen.eval()
    return gen


def stylize(path):
    gen = load_frozen(path)
    image = torch.rand(1, 3, 64, 64)
    # ok: TL102
    return gen(image)


def stylize_trainable(path):
    gen = load_trainable(path)
    image = torch.rand(1, 3, 64, 64)
    # expect: TL102
    return gen(image)


class StyleServer:
    """The frozen generator run on whatever a request queue hands it: an
    input the model knows nothing of records no graph of the generator."""

    def __init__(self, path):
        self.model = load_frozen(path)

    def run_model(self, batch):
        # ok: TL102
        return self.model(batch).to("cpu")


class TrainableServer:
    def __init__(self, path):
        self.model = load_trainable(path)

    def run_model(self, batch):
        # expect: TL102
        return self.model(batch).to("cpu")
