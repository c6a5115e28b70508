"""TL306 non-blocking-without-pinned-memory: fixtures.

An `expect` annotation sits before `.to(device, non_blocking=True)` /
`.cuda(non_blocking=True)` on a batch (or an element or field of one) of a
DataLoader built in this file without `pin_memory=True`: through
`enumerate`/`tqdm`, unpacking, `next(iter(...))`, a loader passed to a
training function, a loader returned by a local factory. An `ok`
annotation sits before transfers that are fine or cannot be judged: the
loader pins (by keyword, by position, through `**kwargs`, through a
non-literal flag), the batch is pinned explicitly, the copy is blocking,
the loader is not built in the file, the value is not a batch.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from tqdm import tqdm

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self, in_features=32, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x):
        return self.fc(x)


def step(model, opt, x, y):
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the loader does not pin; both copies are from pageable memory.
def plain_loader(model, dataset, opt):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
    for x, y in loader:
        # expect: TL306
        x = x.to(device, non_blocking=True)
        # expect: TL306
        y = y.cuda(non_blocking=True)
        step(model, opt, x, y)


# Flagged: `pin_memory=False` said out loud.
def pin_memory_false(model, dataset, opt):
    # expect: TL308
    loader = torch.utils.data.DataLoader(dataset, batch_size=64, pin_memory=False)
    for i, (x, y) in enumerate(loader):
        # expect: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# Flagged: through tqdm and enumerate, a batch tuple indexed.
def tqdm_enumerate(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=32)
    for i, batch in enumerate(tqdm(loader)):
        # expect: TL306
        x = batch[0].to(device, non_blocking=True)
        step(model, opt, x, batch[1].to(device))


# Flagged: a dict batch unpacked by key.
def dict_batch(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=32, collate_fn=lambda b: b)
    for batch in loader:
        # expect: TL306
        inputs = batch["inputs"].to(device, non_blocking=True)
        labels = batch["labels"].to(device)
        step(model, opt, inputs, labels)


# Flagged: the values of a dict batch in a loop over `.items()`.
def dict_items(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=32)
    for batch in loader:
        moved = {}
        for k, v in batch.items():
            # expect: TL306
            moved[k] = v.to(device, non_blocking=True)
        step(model, opt, moved["x"], moved["y"])


def train_epoch(model, loader, opt):
    for x, y in loader:
        # expect: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# Flagged: the loader is built by the caller and passed in.
def passed_to_helper(model, dataset, opt, epochs):
    # expect: TL308
    train_loader = DataLoader(dataset, batch_size=128, shuffle=True, drop_last=True)
    for epoch in range(epochs):
        train_epoch(model, train_loader, opt)


def make_loader(dataset):
    return DataLoader(dataset, batch_size=16, num_workers=2)


# Flagged: a local factory returns the loader; `next(iter(...))` draws a batch.
def next_iter(model, dataset, opt, steps):
    it = iter(make_loader(dataset))
    for _ in range(steps):
        x, y = next(it)
        # expect: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# Flagged: a `self.` loader built in __init__ without pinning.
class Trainer:
    def __init__(self, dataset):
        self.model = Net().to(device)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        # expect: TL308
        self.loader = DataLoader(dataset, batch_size=64, shuffle=True)

    def fit(self):
        for x, y in self.loader:
            # expect: TL306
            x, y = x.to(device, non_blocking=True), y.to(device)
            step(self.model, self.opt, x, y)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the loader pins.
def pinned_loader(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64, pin_memory=True)
    for x, y in loader:
        # ok: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# OK: pin_memory passed by position (the eighth parameter).
def pinned_by_position(model, dataset, opt):
    loader = DataLoader(dataset, 64, True, None, None, 4, None, True)
    for x, y in loader:
        # ok: TL306
        x = x.cuda(non_blocking=True)
        step(model, opt, x, y.cuda())


# OK: pinning decided by a flag the file cannot evaluate.
def pinned_by_flag(model, dataset, opt, use_cuda):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64, pin_memory=use_cuda)
    for x, y in loader:
        # ok: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# OK: pytorch/examples passes the options through **kwargs, which may pin.
def pinned_through_kwargs(model, dataset, opt):
    kwargs = {"batch_size": 64}
    kwargs.update({"num_workers": 1, "pin_memory": True, "shuffle": True})
    loader = DataLoader(dataset, **kwargs)
    for x, y in loader:
        # ok: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# OK: nanoGPT pins the batch itself before the asynchronous copy.
def pinned_explicitly(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    for x, y in loader:
        # ok: TL306
        x = x.pin_memory().to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# OK: a blocking copy from an unpinned loader is what non_blocking=False means.
def blocking_copy(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    for x, y in loader:
        # ok: TL306
        x = x.to(device, non_blocking=False)
        step(model, opt, x, y.to(device))


# OK: the loader comes from elsewhere (a library factory); its pinning is unknown.
def external_loader(model, build_loader, opt):
    loader = build_loader()
    for x, y in loader:
        # ok: TL306
        x = x.to(device, non_blocking=True)
        step(model, opt, x, y.to(device))


# OK: enumerate's counter is not a batch.
def counter_is_not_a_batch(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    for i, (x, y) in enumerate(loader):
        # ok: TL306
        idx = torch.tensor(i).to(device, non_blocking=True)
        step(model, opt, x.to(device) + 0 * idx, y.to(device))


# OK: one call site passes a pinned loader, the other an unpinned one; some copies overlap.
def train_any(model, loader, opt):
    for x, y in loader:
        # ok: TL306
        step(model, opt, x.to(device, non_blocking=True), y.to(device))


def two_callers(model, dataset, opt):
    # expect: TL308
    train_any(model, DataLoader(dataset, batch_size=8, pin_memory=True), opt)
    # expect: TL308
    train_any(model, DataLoader(dataset, batch_size=8), opt)


# OK: a host tensor made in the loop (not a batch) is outside this rule.
def not_a_batch(model, dataset, opt):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    for x, y in loader:
        # expect: TL307
        noise = torch.randn(4)
        # ok: TL306
        n = noise.to(device, non_blocking=True)
        step(model, opt, x.to(device) + n.sum(), y.to(device))
