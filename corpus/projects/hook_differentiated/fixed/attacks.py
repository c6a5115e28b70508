import torch


class GradientAttack:
    """Perturbs inputs along the gradient of the loss a hook computes."""

    def __init__(self, model, step=0.01):
        self.model = model
        self.step = step

    def perturb(self, x, labels):
        x = x.clone().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(self.logits(x), labels)
        grad, = torch.autograd.grad(loss, x)
        return (x + self.step * grad.sign()).detach()

    def logits(self, x):
        return self.model(x)
