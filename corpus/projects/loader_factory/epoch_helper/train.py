import torch
import torch.nn.functional as F

from data import epochs
from data.epochs import begin, reshuffle
from data.loaders import build_loaders, loader_and_sampler


def step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


def fit(model, opt, train_set, val_set, epochs_, world_size, rank):
    train_loader, val_loader = build_loaders(train_set, val_set, world_size, rank)
    for epoch in range(epochs_):
        epochs.start_epoch(train_loader, epoch)
        model.train()
        # the factory pins memory and the helper sets the sampler's epoch
        # ok: TL215
        for x, y in train_loader:
            # ok: TL306
            x = x.cuda(non_blocking=True)
            # ok: TL306
            y = y.cuda(non_blocking=True)
            step(model, opt, x, y)
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x.cuda(non_blocking=True))


def fit_through_begin(model, opt, train_set, val_set, epochs_):
    train_loader, _ = build_loaders(train_set, val_set, 2, 0)
    for epoch in range(epochs_):
        begin(train_loader, epoch, log=print)
        # ok: TL215
        for x, y in train_loader:
            step(model, opt, x, y)


def fit_sampler_beside(model, opt, train_set, epochs_):
    loader, sampler = loader_and_sampler(train_set)
    for epoch in range(epochs_):
        reshuffle(sampler, epoch)
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)


def fit_prepared(model, opt, train_set, epochs_):
    from torch.utils.data import DataLoader
    from torch.utils.data.distributed import DistributedSampler

    from data.loaders import prepare

    loader = DataLoader(train_set, batch_size=8, sampler=DistributedSampler(train_set), num_workers=4)
    model, loader = prepare(model, loader, "cuda")
    for epoch in range(epochs_):
        # the loader prepare() hands back is the one built here, and its epoch is set
        loader.sampler.set_epoch(epoch)
        # ok: TL215
        for x, y in loader:
            step(model, opt, x, y)
