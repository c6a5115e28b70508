"""TL309 anomaly-detection-enabled: fixtures.

An `expect` annotation sits before `torch.autograd.set_detect_anomaly(True)`
that is on for a training step loop (later in its function, through a local
function it calls, or anywhere in the file when set at module level), and
before a `with torch.autograd.detect_anomaly():` item whose block runs a
training step loop. An `ok` annotation sits before the same calls under a
condition (a debug flag), with an argument that is not True, around a
single step, in test functions, and in files or regions without a training
loop.
"""
import argparse

import torch
import torch.nn.functional as F
from torch import autograd, nn
from torch.autograd import detect_anomaly, set_detect_anomaly
from torch.nn.parallel import DistributedDataParallel as DDP


def train_epoch(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()


# Flagged: switched on at the top of main(), which then trains through a helper.
def main(model, loader, opt, epochs):
    # expect: TL309
    torch.autograd.set_detect_anomaly(True)
    for _ in range(epochs):
        train_epoch(model, loader, opt)


# Flagged: a with block around the whole epoch loop.
def fit(model, loader, opt, epochs):
    # expect: TL309
    with torch.autograd.detect_anomaly():
        for _ in range(epochs):
            for x, y in loader:
                opt.zero_grad()
                F.mse_loss(model(x), y).backward()
                opt.step()


# Flagged: the imported name, keyword form, in a DDP set-up.
def ddp_worker(rank, model, loader):
    ddp = DDP(model, device_ids=[rank])
    opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
    # expect: TL309
    set_detect_anomaly(mode=True)
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(ddp(x), y).backward()
        opt.step()


# Flagged: `from torch import autograd`, check_nan, inside a trainer method.
class Trainer:
    def __init__(self, model, opt, scaler):
        self.model, self.opt, self.scaler = model, opt, scaler

    def step(self, x, y):
        with torch.autocast("cuda"):
            loss = F.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.opt)
        self.scaler.update()

    def run(self, loader):
        # expect: TL309
        with autograd.detect_anomaly(check_nan=True):
            for x, y in loader:
                self.step(x, y)


# Flagged: the imported context manager, with a call of the trainer's loop.
def run_all(model, loader, opt):
    # expect: TL309
    with detect_anomaly():
        train_epoch(model, loader, opt)


# Flagged: set_detect_anomaly(True) used as a context manager.
def fit_context(model, loader, opt):
    # expect: TL309
    with torch.autograd.set_detect_anomaly(True):
        train_epoch(model, loader, opt)


# Flagged: a GAN loop with two optimizers.
def train_gan(gen, disc, loader, opt_g, opt_d, z_dim):
    # expect: TL309
    torch.autograd.set_detect_anomaly(True)
    for real in loader:
        z = torch.randn(real.shape[0], z_dim)
        fake = gen(z)
        opt_d.zero_grad()
        d_loss = F.softplus(disc(fake.detach())).mean() + F.softplus(-disc(real)).mean()
        d_loss.backward()
        opt_d.step()
        opt_g.zero_grad()
        F.softplus(-disc(fake)).mean().backward()
        opt_g.step()


# Flagged: a while loop over steps.
def train_steps(model, batches, opt, max_steps):
    # expect: TL309
    autograd.set_detect_anomaly(True)
    step = 0
    while step < max_steps:
        x, y = next(batches)
        opt.zero_grad()
        F.mse_loss(model(x), y).backward()
        opt.step()
        step += 1


# ---------------------------------------------------------------------------
# Correct
# ---------------------------------------------------------------------------


# OK: behind a debug flag (an if, a conditional expression, `and`).
def main_with_flag(model, loader, opt, args):
    if args.detect_anomaly:
        # ok: TL309
        torch.autograd.set_detect_anomaly(True)
    # ok: TL309
    args.debug and torch.autograd.set_detect_anomaly(True)
    train_epoch(model, loader, opt)


# OK: the flag itself is the argument; False turns it off.
def main_args(model, loader, opt, args):
    # ok: TL309
    torch.autograd.set_detect_anomaly(args.detect_anomaly)
    # ok: TL309
    torch.autograd.set_detect_anomaly(False)
    # ok: TL309
    with torch.autograd.set_detect_anomaly(False):
        train_epoch(model, loader, opt)


# OK: a with block around one step (debugging a single backward).
def debug_one_step(model, x, y):
    # ok: TL309
    with torch.autograd.detect_anomaly():
        loss = F.mse_loss(model(x), y)
        loss.backward()


# OK: a test function.
def test_backward_is_finite():
    model = nn.Linear(3, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(4, 3)
    # ok: TL309
    with torch.autograd.detect_anomaly():
        for _ in range(3):
            opt.zero_grad()
            model(x).sum().backward()
            opt.step()


class TestTrainer:
    def check_loop(self, model, loader, opt):
        # ok: TL309
        torch.autograd.set_detect_anomaly(True)
        train_epoch(model, loader, opt)


# OK: evaluation only: no training step loop runs after it.
@torch.no_grad()
def evaluate(model, loader):
    # ok: TL309
    torch.autograd.set_detect_anomaly(True)
    return [model(x).argmax(1) for x, _ in loader]


# OK: switched on after the training loop has finished.
def after(model, loader, opt):
    train_epoch(model, loader, opt)
    # ok: TL309
    torch.autograd.set_detect_anomaly(True)


# OK: a command-line switch decides.
def cli(model, loader, opt):
    parser = argparse.ArgumentParser()
    parser.add_argument("--detect-anomaly", action="store_true")
    args = parser.parse_args()
    # ok: TL309
    torch.autograd.set_detect_anomaly(args.detect_anomaly)
    train_epoch(model, loader, opt)


# Known miss: the training loop is in another function called by the caller.
def setup_debugging():
    # todo-expect: TL309
    torch.autograd.set_detect_anomaly(True)


def entry(model, loader, opt):
    setup_debugging()
    train_epoch(model, loader, opt)
