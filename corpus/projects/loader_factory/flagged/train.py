import torch
import torch.nn.functional as F

from data.loaders import build_loaders, loader_and_sampler, loader_dict


def step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def fit(model, opt, train_set, val_set, epochs, world_size, rank):
    train_loader, val_loader = build_loaders(train_set, val_set, world_size, rank)
    for epoch in range(epochs):
        model.train()
        # expect: TL215
        for x, y in train_loader:
            # expect: TL306
            x = x.cuda(non_blocking=True)
            # expect: TL306
            y = y.cuda(non_blocking=True)
            step(model, opt, x, y)
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x.cuda())


def fit_dict(model, opt, train_set, val_set, epochs):
    loaders = loader_dict(train_set, val_set)
    for epoch in range(epochs):
        # expect: TL215
        for x, y in loaders["train"]:
            step(model, opt, x, y)


def fit_sampler_beside(model, opt, train_set, epochs):
    loader, sampler = loader_and_sampler(train_set)
    for epoch in range(epochs):
        # the sampler comes back beside the loader, and nobody sets its epoch
        # expect: TL215
        for x, y in loader:
            step(model, opt, x, y)


def fit_prepared(model, opt, train_set, epochs):
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    from data.loaders import checked, prepare

    sampler = checked(DistributedSampler(train_set))
    loader = DataLoader(train_set, batch_size=8, sampler=sampler, num_workers=4)
    model, loader = prepare(model, loader, "cuda")
    for epoch in range(epochs):
        # the loader comes back unchanged from prepare()
        # expect: TL215
        for x, y in loader:
            step(model, opt, x, y)
