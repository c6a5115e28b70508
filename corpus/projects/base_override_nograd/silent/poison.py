import torch
from torch import nn

from attacks import Attack


def train(model, x, y, epochs=5):
    model.train()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    for _ in range(epochs):
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


class PoisoningAttack(Attack):
    """Retrains the model on the perturbed data before each forward."""

    def __init__(self, model, y, steps=10):
        super().__init__(model, steps)
        self.y = y

    def _forward(self, x):
        with torch.enable_grad():
            train(self.model, x, self.y)
        self.model.eval()
        # the base class calls _forward only under no_grad (_update,
        # _close -> _pick): no graph is recorded
        # ok: TL102
        return self.model(x)


def main():
    model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.1), nn.Linear(16, 3))
    x, y = torch.randn(32, 8), torch.randint(0, 3, (32,))
    train(model, x, y)
    print(PoisoningAttack(model, y).attack(x, y))


if __name__ == "__main__":
    main()
