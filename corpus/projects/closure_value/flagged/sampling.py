import torch

import nets


def sample(model, x, steps):
    fn = nets.get_model_fn(model, train=False)
    with torch.no_grad():
        for t in range(steps):
            x = x - 0.1 * fn(x, t)
    return x
