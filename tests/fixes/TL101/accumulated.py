import torch


def train(model, loader, opt, crit):
    losses = []
    total = 0
    history = {}
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        losses.append(loss)
        total += loss * x.size(0)
        history[step] = loss
    return losses, total, history
