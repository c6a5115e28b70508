import torch


class Attack(torch.nn.Module):
    """Perturbs per-sample input weights against a fixed model: the
    gradient step differentiates its own forward, the updates and the
    final pick run the model through `_forward` with gradients off."""

    def __init__(self, model, steps=10):
        super().__init__()
        self.model = model
        self.steps = steps

    def attack(self, x, labels):
        self.model.eval()
        self.weight = torch.ones(x.size(0), device=x.device)
        for _ in range(self.steps):
            gradient = self._gradient(x, labels)
            self._update(gradient, x, labels)
        return self._close(x, labels)

    def _gradient(self, x, labels):
        self.weight.requires_grad_(True)
        prediction = self.model(x * self.weight[:, None])
        loss = torch.nn.functional.cross_entropy(prediction, labels)
        return torch.autograd.grad(loss, self.weight)[0]

    @torch.no_grad()
    def _update(self, gradient, x, labels):
        self.weight = (self.weight - gradient).clamp(0, 1)
        prediction = self._forward(x * self.weight[:, None])
        return (prediction.argmax(-1) == labels).float().mean()

    @torch.no_grad()
    def _close(self, x, labels):
        return self._pick(x, labels)

    def _pick(self, x, labels):
        prediction = self._forward(x * self.weight.round()[:, None])
        return prediction.argmax(-1) != labels

    def _forward(self, x):
        return self.model(x)
