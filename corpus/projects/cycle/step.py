import torch.nn.functional as F

import loop


def update(model, opt, x, y):
    loss = F.mse_loss(model(x), y)
    loss.backward()
    # expect: TL201
    opt.step()
    return loop.LOG_EVERY
