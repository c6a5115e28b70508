import torch
import torch.nn.functional as F


def fit_epoch(net, opt, epoch, train_iter, val_iter, steps):
    net.train()
    # expect: TL215
    for step, (x, y) in enumerate(train_iter):
        if step >= steps:
            break
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    net.eval()
    total = 0.0
    with torch.no_grad():
        for x, y in val_iter:
            total += F.mse_loss(net(x), y).item()
    return total


def warm_up(net, opt, train_iter):
    # called once, outside any loop: no later epoch repeats the order
    # ok: TL215
    for x, y in train_iter:
        loss = F.mse_loss(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
