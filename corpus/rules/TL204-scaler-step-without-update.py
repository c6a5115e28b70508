"""TL204 scaler-step-without-update: fixtures.

An `expect` annotation sits before a `scaler.step(optimizer)` in a loop that
backpropagates, when no `scaler.update()` runs in the same iteration (the
loop body and the local functions it calls): current PyTorch raises at the
second step. An `ok` annotation sits before steps whose iteration updates
the scaler (directly, in a helper, under the same accumulation condition, once
after several optimizers), steps of a scaler disabled by `enabled=False`, and
steps outside any loop.
"""
import torch
from torch import nn
from torch.amp import GradScaler

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.layers(x)


def amp_loss(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        return nn.functional.cross_entropy(model(x), y)


def optimizer_step(scaler, optimizer):
    # expect: TL204
    scaler.step(optimizer)
    optimizer.zero_grad(set_to_none=True)


def finish_step(scaler, optimizer):
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the AMP recipe without `scaler.update()`.
def no_update(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        scaler.scale(amp_loss(model, x, y)).backward()
        # expect: TL204
        scaler.step(optimizer)


# Flagged: the update runs once per epoch, after many steps.
def update_per_epoch(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            scaler.scale(amp_loss(model, x, y)).backward()
            # expect: TL204
            scaler.step(optimizer)
        scaler.update()


# Flagged: gradient accumulation steps under a condition and never updates.
def accumulation_without_update(train_loader, accum=4):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for i, (x, y) in enumerate(train_loader):
        scaler.scale(amp_loss(model, x, y) / accum).backward()
        if (i + 1) % accum == 0:
            # expect: TL204
            scaler.step(optimizer)
            optimizer.zero_grad()


# Flagged: the scaler is a trainer attribute.
class Trainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        # expect: TL402
        self.scaler = torch.cuda.amp.GradScaler()

    def fit(self, train_loader):
        for x, y in train_loader:
            self.optimizer.zero_grad()
            self.scaler.scale(amp_loss(self.model, x, y)).backward()
            # expect: TL204
            self.scaler.step(self.optimizer)


# Flagged: two optimizers stepped through the scaler, no update for either.
def two_optimizers_no_update(train_loader):
    model = Net().to(device)
    opt_body = torch.optim.AdamW(model.layers[:3].parameters(), lr=1e-3)
    opt_head = torch.optim.SGD(model.layers[3].parameters(), lr=1e-2)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        opt_body.zero_grad()
        opt_head.zero_grad()
        scaler.scale(amp_loss(model, x, y)).backward()
        # expect: TL204
        scaler.step(opt_body)
        # expect: TL204
        scaler.step(opt_head)


# Flagged (in optimizer_step above): the loop's step helper steps the scaler and nothing updates it.
def step_helper_without_update(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        scaler.scale(amp_loss(model, x, y)).backward()
        optimizer_step(scaler, optimizer)


# Flagged: a `while` step loop; the scaler's name is no hint, its binding is.
def while_loop(batches, steps):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    amp = GradScaler("cuda", init_scale=2.0 ** 14)
    step = 0
    while step < steps:
        x, y = next(batches)
        optimizer.zero_grad()
        amp.scale(amp_loss(model, x, y)).backward()
        # expect: TL204
        amp.step(optimizer)
        step += 1


# Flagged: the update is written but never called (`scaler.update` without parentheses).
def update_not_called(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        scaler.scale(amp_loss(model, x, y)).backward()
        # expect: TL204
        scaler.step(optimizer)
        scaler.update


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the full recipe.
def full_recipe(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(amp_loss(model, x, y)).backward()
        # ok: TL204
        scaler.step(optimizer)
        scaler.update()


# OK: step and update inside a helper the loop calls.
def helper_updates(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        scaler.scale(amp_loss(model, x, y)).backward()
        # ok: TL204
        finish_step(scaler, optimizer)


# OK: accumulation with step and update under the same condition.
def accumulation_with_update(train_loader, accum=4):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for i, (x, y) in enumerate(train_loader):
        scaler.scale(amp_loss(model, x, y) / accum).backward()
        if (i + 1) % accum == 0:
            # ok: TL204
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()


# OK: two optimizers, one update per iteration after both steps (the documented multi-optimizer form).
def two_optimizers_one_update(train_loader):
    model = Net().to(device)
    opt_body = torch.optim.AdamW(model.layers[:3].parameters(), lr=1e-3)
    opt_head = torch.optim.SGD(model.layers[3].parameters(), lr=1e-2)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        opt_body.zero_grad()
        opt_head.zero_grad()
        scaler.scale(amp_loss(model, x, y)).backward()
        # ok: TL204
        scaler.step(opt_body)
        # ok: TL204
        scaler.step(opt_head)
        scaler.update()


# OK: a scaler disabled by a literal `enabled=False` is a no-op; its step is a plain optimizer step.
def disabled_scaler(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda", enabled=False)
    for x, y in train_loader:
        optimizer.zero_grad()
        scaler.scale(nn.functional.cross_entropy(model(x), y)).backward()
        # ok: TL204
        scaler.step(optimizer)


# OK: an explicit new scale passed to update().
def update_with_new_scale(train_loader, scale):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        scaler.scale(amp_loss(model, x, y)).backward()
        # ok: TL204
        scaler.step(optimizer)
        scaler.update(scale)


# OK: one step outside any loop (a warm-up check).
def single_step(model, optimizer, x, y):
    scaler = GradScaler("cuda")
    scaler.scale(amp_loss(model, x, y)).backward()
    # ok: TL204
    scaler.step(optimizer)


# OK: scheduler steps are not scaler steps.
def scheduler_steps(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=len(train_loader))
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        scaler.scale(amp_loss(model, x, y)).backward()
        scaler.step(optimizer)
        scaler.update()
        # ok: TL204
        scheduler.step()


# OK: a retry loop around one batch (it shrinks the micro-batch and tries
# again after running out of memory) that returns once the step succeeded;
# the caller's batch loop updates the scaler after every batch.
class RetryingTrainer:
    def __init__(self, model, optimizers):
        self.model = model
        self.optimizers = optimizers
        self.scaler = GradScaler("cuda")
        self.micro = 8

    def train_batch(self, batch):
        while True:
            try:
                for chunk in batch.split(self.micro):
                    self.scaler.scale(self.model(chunk).mean()).backward()
                for opt in self.optimizers:
                    # ok: TL204
                    self.scaler.step(opt)
            except torch.cuda.OutOfMemoryError:
                self.micro //= 2
                continue
            return

    def fit(self, loader):
        for batch in loader:
            self.train_batch(batch)
            self.scaler.update()
            for opt in self.optimizers:
                opt.zero_grad()


# OK: two networks, each with its own loss and optimizer, stepped in a loop
# over the pairs; the scaler is updated once after both steps, as the AMP
# recipe for several optimizers does.
def paired_models(train_loader):
    models = [Net().to(device), Net().to(device)]
    optimizers = [torch.optim.AdamW(m.parameters(), lr=1e-3) for m in models]
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        for model, optimizer in zip(models, optimizers):
            optimizer.zero_grad()
            scaler.scale(amp_loss(model, x, y)).backward()
            # ok: TL204
            scaler.step(optimizer)
        scaler.update()
