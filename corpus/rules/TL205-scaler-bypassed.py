"""TL205 scaler-bypassed: fixtures.

An `expect` annotation sits before the half of a GradScaler step that
bypasses the scaler while the rest of the iteration uses it: an unscaled
`loss.backward()` whose gradients `scaler.step(optimizer)` consumes (the
update comes out 65536x too small by default), or a plain
`optimizer.step()` after `scaler.scale(loss).backward()` (65536x too
large). An `ok` annotation sits before consistent uses, the common
`if scaler is not None: ... else: ...` branches, disabled scalers, and loops
that mix a scaled and an unscaled optimizer in ways that cannot be told apart.
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


def backward_of(loss):
    # expect: TL205
    loss.backward()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the backward is unscaled but the step goes through the scaler, which divides the gradients by the scale.
def unscaled_backward(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        # expect: TL205
        loss.backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: the backward is scaled but the step bypasses the scaler: the update is multiplied by the scale.
def plain_step_after_scaled_backward(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        # expect: TL205
        optimizer.step()
        scaler.update()


# Flagged: `torch.autograd.backward(loss)` is an unscaled backward too.
def autograd_backward_with_scaler_step(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        # expect: TL205
        torch.autograd.backward(loss)
        scaler.step(optimizer)
        scaler.update()


# Flagged: the scaled loss is bound to a name first; the step still bypasses the scaler.
def scaled_name_plain_step(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        scaled = scaler.scale(loss)
        scaled.backward()
        # expect: TL205
        optimizer.step()
        scaler.update()


# Flagged: a trainer with `self.scaler`: unscaled backward, scaled step.
class Trainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = GradScaler("cuda")

    def fit(self, train_loader):
        for x, y in train_loader:
            self.optimizer.zero_grad()
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = nn.functional.cross_entropy(self.model(x), y)
            # expect: TL205
            loss.backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()


# Flagged: gradient accumulation with scaled backwards and a plain step under the condition.
def accumulation_plain_step(train_loader, accum=4):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for i, (x, y) in enumerate(train_loader):
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            # expect: TL205
            optimizer.step()
            scaler.update()
            optimizer.zero_grad()


# Flagged (in backward_of above): the loop's backward helper backpropagates the unscaled loss.
def backward_in_helper(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        backward_of(loss)
        scaler.step(optimizer)
        scaler.update()


# Flagged: the legacy `torch.cuda.amp.GradScaler`, scaled backward, optimizer stepped directly.
def legacy_scaler_plain_step(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    # expect: TL402
    grad_scaler = torch.cuda.amp.GradScaler()
    for x, y in train_loader:
        optimizer.zero_grad()
        # expect: TL402
        with torch.cuda.amp.autocast():
            loss = nn.functional.cross_entropy(model(x), y)
        grad_scaler.scale(loss).backward()
        # expect: TL205
        optimizer.step()
        grad_scaler.update()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: both halves through the scaler.
def consistent(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        # ok: TL205
        scaler.scale(loss).backward()
        # ok: TL205
        scaler.step(optimizer)
        scaler.update()


# OK: the torchvision pattern: a scaler only when AMP is on, and a plain path otherwise.
def optional_scaler(train_loader, amp):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda") if amp else None
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=scaler is not None):
            loss = nn.functional.cross_entropy(model(x), y)
        if scaler is not None:
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
        else:
            # ok: TL205
            loss.backward()
            # ok: TL205
            optimizer.step()


# OK: unscale_ before clipping, then the scaler's step (nanoGPT).
def unscale_then_clip(train_loader, clip=1.0):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda", enabled=True)
    for x, y in train_loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        # ok: TL205
        scaler.scale(loss).backward()
        if clip > 0:
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad(set_to_none=True)


# OK: a scaler disabled by a literal `enabled=False` scales nothing, so mixing is harmless.
def disabled_scaler(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda", enabled=False)
    for x, y in train_loader:
        optimizer.zero_grad()
        # ok: TL205
        nn.functional.cross_entropy(model(x), y).backward()
        scaler.step(optimizer)
        scaler.update()


# OK: a GAN whose discriminator uses the scaler and whose generator trains in fp32: the loop mixes both kinds,
# which cannot be matched up without knowing which backward feeds which optimizer.
def mixed_gan(loader, netG, netD, nz=64):
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    scaler = GradScaler("cuda")
    for real in loader:
        optD.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            d_loss = nn.functional.softplus(-netD(real)).mean()
        scaler.scale(d_loss).backward()
        scaler.step(optD)
        scaler.update()
        optG.zero_grad()
        g_loss = nn.functional.softplus(-netD(netG(torch.randn(real.size(0), nz, device=device)))).mean()
        # ok: TL205
        g_loss.backward()
        # ok: TL205
        optG.step()


# OK: an AMP loop and a later fp32 fine-tuning loop in one function: separate iterations.
def amp_then_fp32(train_loader, finetune_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
    for x, y in finetune_loader:
        optimizer.zero_grad()
        # ok: TL205
        nn.functional.cross_entropy(model(x), y).backward()
        # ok: TL205
        optimizer.step()


# OK: Accelerate scales inside `accelerator.backward`; a plain optimizer step is its documented form.
def accelerate_loop(accelerator, model, optimizer, train_loader):
    for x, y in train_loader:
        optimizer.zero_grad()
        with accelerator.autocast():
            loss = nn.functional.cross_entropy(model(x), y)
        accelerator.backward(loss)
        # ok: TL205
        optimizer.step()


# OK: the stand-in a project uses when AMP is off. Its step method is how that
# scaler steps, so the optimizer.step() inside it bypasses nothing. A plain
# step next to the scaled backward in the loop itself still does.
class IdentityScaler:
    def scale(self, loss):
        return loss

    def unscale_(self, optimizer):
        pass

    def step(self, optimizer):
        # ok: TL205
        optimizer.step()

    def update(self):
        pass


def train_maybe_amp(train_loader, use_amp):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    if use_amp:
        scaler = GradScaler("cuda")
    else:
        scaler = IdentityScaler()
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def train_maybe_amp_bypassed(train_loader, use_amp):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scaler = GradScaler("cuda") if use_amp else IdentityScaler()
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        # expect: TL205
        optimizer.step()
        scaler.update()
