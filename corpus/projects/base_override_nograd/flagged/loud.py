import torch

from attacks import Attack


class LoudAttack(Attack):
    """Its _report hands the call on to the base's, which runs _forward
    with gradients on."""

    def _report(self, x, labels):
        print("step")
        super()._report(x, labels)

    def _forward(self, x):
        self.model.eval()
        # expect: TL102
        return self.model(x)


def main(model, x, y):
    print(LoudAttack(model).attack(x, y))


if __name__ == "__main__":
    main(torch.nn.Sequential(torch.nn.Linear(8, 3), torch.nn.Dropout(0.1)), torch.randn(4, 8), torch.zeros(4).long())
