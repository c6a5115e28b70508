import torch

from attacks import Attack


class QuietAttack(Attack):
    """Reports nothing: its _report replaces the base's, which was the one
    caller of _forward with gradients on."""

    def _report(self, x, labels):
        pass

    def _forward(self, x):
        self.model.eval()
        # ok: TL102
        return self.model(x)


def main(model, x, y):
    print(QuietAttack(model).attack(x, y))


if __name__ == "__main__":
    main(torch.nn.Sequential(torch.nn.Linear(8, 3), torch.nn.Dropout(0.1)), torch.randn(4, 8), torch.zeros(4).long())
