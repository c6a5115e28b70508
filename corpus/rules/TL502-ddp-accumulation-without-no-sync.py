"""TL502 ddp-accumulation-without-no-sync (opt-in): fixtures.

An `expect` annotation sits before the `.backward()` of a loss computed by
a DistributedDataParallel model when the iteration accumulates gradients
(the optimizer steps only every N micro-steps, or after a micro-batch
loop) and the backward is not inside `model.no_sync()`: every micro-step
all-reduces gradients that the next micro-step changes again. An `ok`
annotation sits before backwards that skip the sync (`no_sync()`, also
conditional or aliased, nanoGPT's `require_backward_grad_sync`, Accelerate's
`accumulate`), backwards that step every iteration, and models that are
not wrapped in DDP.
"""
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self, in_features=32, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x):
        return self.fc(x)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the textbook accumulation loop with a DDP model and no `no_sync`.
def accumulate_every_micro_step(loader, rank, accum=4):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(rank)), y.to(rank)) / accum
        # expect: TL502
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# Flagged: the fully qualified wrapper, the loss through a criterion.
def qualified_wrapper(loader, rank, accum):
    model = torch.nn.parallel.DistributedDataParallel(Net().to(rank), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for step, (x, y) in enumerate(loader):
        out = model(x.to(rank))
        loss = criterion(out, y.to(rank)) / accum
        # expect: TL502
        loss.backward()
        if step % accum == accum - 1:
            opt.step()
            opt.zero_grad(set_to_none=True)


# Flagged: with a GradScaler; the backward is `scaler.scale(loss).backward()`.
def with_scaler(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for step, (x, y) in enumerate(loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = F.cross_entropy(model(x.to(rank)), y.to(rank)) / accum
        # expect: TL502
        scaler.scale(loss).backward()
        if (step + 1) % accum == 0:
            scaler.step(opt)
            scaler.update()
            opt.zero_grad()


# Flagged: a micro-batch loop inside the step loop (the step comes after it).
def micro_batch_loop(loader, rank, micro):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        for xs, ys in zip(x.chunk(micro), y.chunk(micro)):
            loss = F.cross_entropy(model(xs.to(rank)), ys.to(rank)) / micro
            # expect: TL502
            loss.backward()
        opt.step()
        opt.zero_grad()


# Flagged: the model is wrapped by the caller and passed in.
def train(model, loader, opt, accum):
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        # expect: TL502
        (loss / accum).backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


def main(loader, rank):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    train(ddp_model, loader, torch.optim.SGD(ddp_model.parameters(), lr=0.1), accum=8)


# Flagged: a `self.` model wrapped in __init__.
class Trainer:
    def __init__(self, rank, accum):
        self.model = DDP(Net().to(rank), device_ids=[rank])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.accum = accum

    def fit(self, loader):
        for i, (x, y) in enumerate(loader):
            loss = F.cross_entropy(self.model(x), y) / self.accum
            # expect: TL502
            loss.backward()
            if (i + 1) % self.accum == 0:
                self.opt.step()
                self.opt.zero_grad()


# Flagged: the step sits behind an early `continue` for the micro-steps.
def early_continue(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y) / accum
        # expect: TL502
        loss.backward()
        if (i + 1) % accum != 0:
            continue
        opt.step()
        opt.zero_grad()


# Flagged: the forward happens in a helper that is handed the DDP model.
def compute_loss(model, batch):
    x, y = batch
    return F.cross_entropy(model(x), y)


def helper_forward(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, batch in enumerate(loader):
        loss = compute_loss(model, batch) / accum
        # expect: TL502
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the non-stepping micro-steps run under `no_sync()`.
def with_no_sync(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        if (i + 1) % accum != 0:
            with model.no_sync():
                loss = F.cross_entropy(model(x), y) / accum
                # ok: TL502
                loss.backward()
        else:
            loss = F.cross_entropy(model(x), y) / accum
            # ok: TL502
            loss.backward()
            opt.step()
            opt.zero_grad()


# OK: a conditional context: `no_sync()` on micro-steps, a null context on the last one.
def conditional_context(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        last = (i + 1) % accum == 0
        with (contextlib.nullcontext() if last else model.no_sync()):
            loss = F.cross_entropy(model(x), y) / accum
            # ok: TL502
            loss.backward()
        if last:
            opt.step()
            opt.zero_grad()


# OK: the context chosen through a name.
def aliased_context(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        sync_ctx = model.no_sync if (i + 1) % accum else contextlib.nullcontext
        with sync_ctx():
            loss = F.cross_entropy(model(x), y) / accum
            # ok: TL502
            loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# OK: nanoGPT toggles `require_backward_grad_sync` on the last micro-step.
def nanogpt_toggle(get_batch, rank, accum, iters):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4)
    for it in range(iters):
        for micro_step in range(accum):
            model.require_backward_grad_sync = micro_step == accum - 1
            x, y = get_batch("train")
            loss = F.cross_entropy(model(x), y) / accum
            # ok: TL502
            loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)


# OK: no accumulation: every backward is followed by a step.
def step_every_iteration(loader, rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        # ok: TL502
        loss.backward()
        opt.step()


# OK: accumulation without DDP: nothing is synchronised.
def single_gpu_accumulation(loader, accum):
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y) / accum
        # ok: TL502
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


# OK: Accelerate's `accumulate` context handles the synchronisation.
def accelerate_accumulate(accelerator, loader, rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        with accelerator.accumulate(model):
            loss = F.cross_entropy(model(x), y)
            # ok: TL502
            accelerator.backward(loss)
            if accelerator.sync_gradients:
                opt.step()
                opt.zero_grad()


# OK: the step is skipped on a non-finite loss, which is no accumulation schedule.
def skip_on_nan(loader, rank):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        # ok: TL502
        loss.backward()
        if torch.isfinite(loss):
            opt.step()


# OK: `.module` is the wrapped network itself; its forward bypasses DDP.
def inner_module(loader, rank, accum):
    model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        # ...and so these gradients are never averaged at all (TL213)
        # expect: TL213
        loss = F.cross_entropy(model.module(x), y) / accum
        # ok: TL502
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()


def wrap(net, rank):
    return DDP(net.to(rank), device_ids=[rank])


# The DDP wrapper is built by a local helper: the helper's summary says it
# returns one.
def wrapped_by_helper(loader, rank, accum):
    model = wrap(Net(), rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y) / accum
        # expect: TL502
        loss.backward()
        if (i + 1) % accum == 0:
            opt.step()
            opt.zero_grad()
