import torch

import nets
from train import ScoreNet


def score(model, x, eps):
    # the divergence of the model's output: differentiated with respect to
    # its input, so the forward's graph is used
    fn = nets.get_model_fn(model, train=False)
    with torch.enable_grad():
        x.requires_grad_(True)
        fn_eps = torch.sum(fn(x, 1.0) * eps)
        grad = torch.autograd.grad(fn_eps, x)[0]
    x.requires_grad_(False)
    return torch.sum(grad * eps)


if __name__ == "__main__":
    net = ScoreNet()
    net.load_state_dict(torch.load("score.pt", weights_only=True))
    print(score(net, torch.randn(4, 3), torch.randn(4, 3)))
