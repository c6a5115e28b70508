"""TL213 ddp-module-bypassed: fixtures.

An `expect` annotation sits before a forward through the module inside a
DistributedDataParallel wrapper (`ddp.module(x)`, `ddp.module.forward(x)`,
a name bound to `ddp.module`, a parameter every caller passes a wrapped
model) whose result reaches a backward: DDP's own forward never runs, so
that backward's gradients stay local to each process. An `ok` annotation
sits before calls of the wrapper itself, uses of `.module` for saving,
evaluation, metrics and attributes, and `.module` of wrappers that do not
synchronise gradients (DataParallel, an EMA copy).
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DataParallel
from torch.nn.parallel import DistributedDataParallel as DDP


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(32, 64), nn.ReLU())
        self.head = nn.Linear(64, 10)

    def forward(self, x):
        return self.head(self.encoder(x))


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def train_unwrapped_forward(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        # expect: TL213
        logits = ddp_model.module(x.to(rank))
        loss = F.cross_entropy(logits, y.to(rank))
        loss.backward()
        opt.step()


def train_rebound_name(rank, loader):
    model = Net().to(rank)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[rank])
    opt = torch.optim.AdamW(model.parameters())
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        # expect: TL213
        loss = criterion(model.module(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def train_through_alias(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    net = ddp_model.module
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        # expect: TL213
        out = net(x)
        F.mse_loss(out, y).backward()
        opt.step()


def train_forward_method(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        # also TL207 (opt-in): forward() called directly
        # expect: TL213, TL207
        out = ddp_model.module.forward(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()


class Trainer:
    def __init__(self, model, rank):
        self.model = DDP(model.to(rank), device_ids=[rank])
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def train_step(self, x, y):
        self.opt.zero_grad()
        # expect: TL213
        loss = F.cross_entropy(self.model.module(x), y)
        loss.backward()
        self.opt.step()
        return loss.item()


def step(model, opt, x, y):
    opt.zero_grad()
    # expect: TL213
    loss = F.cross_entropy(model.module(x), y)
    loss.backward()
    opt.step()


def train_with_helper(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        step(ddp_model, opt, x, y)


def compute_loss(ddp_model, x, y):
    # expect: TL213
    return F.cross_entropy(ddp_model.module(x), y)


def train_loss_helper(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = compute_loss(ddp_model, x, y)
        loss.backward()
        opt.step()


def train_autocast(rank, loader, scaler):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            # expect: TL213
            logits = ddp_model.module(x)
            loss = F.cross_entropy(logits, y)
        loss.backward()
        opt.step()


def train_micro_batches(rank, loader, chunks):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        for xs, ys in zip(x.chunk(chunks), y.chunk(chunks)):
            # the step is once per batch, in the loop around the micro-batch loop
            # expect: TL213
            loss = F.cross_entropy(ddp_model.module(xs), ys) / chunks
            loss.backward()
        opt.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


def train_through_wrapper(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    opt = torch.optim.SGD(ddp_model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        # ok: TL213
        loss = F.cross_entropy(ddp_model(x), y)
        loss.backward()
        opt.step()


def validate_under_no_grad(ddp_model, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # ok: TL213
            correct += (ddp_model.module(x).argmax(1) == y).sum().item()
    return correct


@torch.no_grad()
def evaluate_decorated(ddp_model, loader):
    losses = []
    for x, y in loader:
        # ok: TL213
        losses.append(F.cross_entropy(ddp_model.module(x), y).item())
    return losses


def save_checkpoint(rank, path):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    # ok: TL213
    torch.save(ddp_model.module.state_dict(), path)


def freeze_encoder(rank):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    # ok: TL213
    ddp_model.module.encoder.requires_grad_(False)
    # ok: TL213
    width = ddp_model.module.head.out_features
    return width


def metric_only(rank, x, y):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    # a forward whose result never reaches a backward (a metric)
    # ok: TL213
    accuracy = (ddp_model.module(x).argmax(1) == y).float().mean().item()
    return accuracy


def data_parallel_module(loader):
    dp = DataParallel(Net().cuda())
    opt = torch.optim.SGD(dp.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        # one process: no gradients to average, only the split is lost
        # ok: TL213
        loss = F.cross_entropy(dp.module(x), y)
        loss.backward()
        opt.step()


class EMA:
    def __init__(self, model):
        self.module = model


def ema_forward(model, x, y):
    ema = EMA(Net())
    # ok: TL213
    loss = F.cross_entropy(ema.module(x), y)
    loss.backward()


def plain_module_named_module(x, y):
    module = Net()
    # ok: TL213
    loss = F.cross_entropy(module(x), y)
    loss.backward()


def eval_mode_probe(rank, x):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    inner = ddp_model.module
    inner.eval()
    # a one-rank check in eval mode (a test of what eval skips), not a training step
    # ok: TL213
    inner(x).sum().backward()


def inference_mode_generation(rank, x):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    with torch.inference_mode():
        # ok: TL213
        return ddp_model.module(x).softmax(-1)


def gradients_reduced_by_hand(rank, batches):
    # A test of a gradient hook: the unwrapped forward gives the local
    # gradients, averaged by hand and compared with the hooked copy's. No
    # optimizer steps on them, so there are no replicas to drift apart.
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    reference = {}
    for x in batches:
        # ok: TL213
        ddp_model.module(x).sum().backward()
        for name, p in ddp_model.named_parameters():
            reference[name] = p.grad.float()
            torch.distributed.all_reduce(reference[name])
        ddp_model.zero_grad()
    return reference


def local_gradient_norm(ddp_model, x):
    # one backward to measure the local gradients' size, nothing stepped
    # ok: TL213
    ddp_model.module(x).sum().backward()
    norm = sum(p.grad.norm() ** 2 for p in ddp_model.parameters()) ** 0.5
    ddp_model.zero_grad()
    return norm


def probe_all_ranks(rank, loader):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    for x, _ in loader:
        local_gradient_norm(ddp_model, x)


def bare_module(model):
    return model.module if hasattr(model, "module") else model


# The module a local helper unwraps from the DDP wrapper: a forward through
# it in the training step bypasses DDP's gradient hooks; the same module
# used only to save is fine.
def train_through_unwrapped(net, loader, rank):
    model = DDP(net.to(rank), device_ids=[rank])
    inner = bare_module(model)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        # expect: TL213
        loss = F.mse_loss(inner(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    # ok: TL213
    torch.save(bare_module(model).state_dict(), "model.pt")
