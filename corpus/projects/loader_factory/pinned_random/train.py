import torch.nn.functional as F

from data.loaders import build_loaders, ordered_loader


def step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def fit(model, opt, train_set, val_set, epochs):
    loaders = build_loaders(train_set, val_set)
    for epoch in range(epochs):
        # a RandomSampler reshuffles by itself, and the memory is pinned
        # ok: TL215
        for x, y in loaders["train"]:
            # ok: TL306
            x = x.cuda(non_blocking=True)
            step(model, opt, x, y)


def fit_ordered(model, opt, train_set, epochs):
    loader = ordered_loader(train_set)
    for epoch in range(epochs):
        # the distributed sampler does not shuffle
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)
