"""TL308 dataloader-in-main-process (opt-in): fixtures.

An `expect` annotation sits before a `DataLoader(...)` built without
`num_workers` (or with a literal `num_workers=0`) whose batches feed a step
loop (training or evaluation) of a file that puts its work on an
accelerator: loading and augmentation then run in the training process,
between steps, while the device waits. An `ok` annotation sits before
loaders with worker processes (a number, a setting, `**kwargs`, the
positional form), loaders that feed no step loop, and loaders of other
libraries.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
from torch.utils.data import DataLoader
from torch.utils.data import DataLoader as Loader
from torch_geometric.loader import DataLoader as GraphLoader
from tqdm import tqdm

device = torch.device("cuda")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(20, 3)

    def forward(self, x):
        return self.fc(x)


def train_epoch(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def run_default_workers(train_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # expect: TL308
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    for epoch in range(10):
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x.to(device)), y.to(device)).backward()
            opt.step()


def run_zero_workers(train_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # expect: TL308
    loader = torch.utils.data.DataLoader(train_set, batch_size=32, num_workers=0, pin_memory=True)
    for epoch in range(10):
        train_epoch(model, loader, opt)


def build_loader(dataset, batch_size):
    # expect: TL308
    return Loader(dataset, batch_size=batch_size, shuffle=True, drop_last=True)


def run_local_factory(train_set):
    model = Net().to(device)
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(5):
        for step, (x, y) in enumerate(tqdm(build_loader(train_set, 128))):
            opt.zero_grad()
            F.cross_entropy(model(x.to(device)), y.to(device)).backward()
            opt.step()


def run_eval_loader(train_loader, val_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # expect: TL308
    val_loader = DataLoader(val_set, batch_size=256)
    for epoch in range(5):
        train_epoch(model, train_loader, opt)
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                print(model(x.to(device)).argmax(1).eq(y.to(device)).sum().item())
        model.train()


def run_inline_loader(train_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        # expect: TL308
        for x, y in DataLoader(train_set, batch_size=16, shuffle=True):
            opt.zero_grad()
            F.cross_entropy(model(x.cuda()), y.cuda()).backward()
            opt.step()


class Trainer:
    def __init__(self, model, train_set):
        self.model = model.to(device)
        self.opt = torch.optim.AdamW(self.model.parameters())
        # expect: TL308
        self.loader = DataLoader(train_set, batch_size=32, shuffle=True)

    def fit(self, epochs):
        for epoch in range(epochs):
            for batch in self.loader:
                x, y = batch
                self.opt.zero_grad()
                F.cross_entropy(self.model(x.to(device)), y.to(device)).backward()
                self.opt.step()


def run_literal_zero_positional(train_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # expect: TL308
    loader = DataLoader(train_set, 64, True, None, None, 0)
    train_epoch(model, loader, opt)


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i, (x, y) in enumerate(loader):
            correct += model(x.to(device)).argmax(1).eq(y.to(device)).sum().item()
    model.train()
    return correct


def run_test_loader_through_helper(train_loader, test_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # expect: TL308
    test_loader = DataLoader(test_set, batch_size=1000, shuffle=False)
    for epoch in range(5):
        train_epoch(model, train_loader, opt)
        print(evaluate(model, test_loader))


def run_distributed_sampler(rank, train_set):
    model = Net().to(rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    sampler = torch.utils.data.distributed.DistributedSampler(train_set)
    # expect: TL308
    loader = DataLoader(train_set, batch_size=32, sampler=sampler, num_workers=0)
    for epoch in range(5):
        sampler.set_epoch(epoch)
        train_epoch(model, loader, opt)


# ---------------------------------------------------------------------------
# Known misses
# ---------------------------------------------------------------------------


def run_step_iterator(train_set, steps):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # todo-expect: TL308
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    it = iter(loader)
    for step in range(steps):
        x, y = next(it)
        opt.zero_grad()
        F.cross_entropy(model(x.to(device)), y.to(device)).backward()
        opt.step()


# ---------------------------------------------------------------------------
# Correct
# ---------------------------------------------------------------------------


def run_with_workers(train_set, args):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # ok: TL308
    a = DataLoader(train_set, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    # ok: TL308
    b = DataLoader(train_set, batch_size=64, num_workers=args.workers)
    # ok: TL308
    c = DataLoader(train_set, batch_size=64, num_workers=os.cpu_count())
    kwargs = {"num_workers": 8, "pin_memory": True} if torch.cuda.is_available() else {}
    # ok: TL308
    d = DataLoader(train_set, batch_size=64, **kwargs)
    # ok: TL308
    e = DataLoader(train_set, 64, True, None, None, 4)
    for loader in (a, b, c, d, e):
        train_epoch(model, loader, opt)


def dataset_statistics(train_set):
    # ok: TL308
    loader = DataLoader(train_set, batch_size=1024)
    total, count = 0.0, 0
    for x, _ in loader:
        total += x.sum().item()
        count += x.numel()
    return total / count


def run_external_trainer(trainer, model, train_set):
    # ok: TL308
    loader = DataLoader(train_set, batch_size=64)
    trainer.fit(model, loader)


def run_graph_loader(graph_set):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    # ok: TL308
    loader = GraphLoader(graph_set, batch_size=32)
    for data in loader:
        opt.zero_grad()
        model(data.x.to(device)).sum().backward()
        opt.step()
