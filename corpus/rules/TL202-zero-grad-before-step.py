"""TL202 zero-grad-before-step: fixtures.

An `expect` annotation sits before a `zero_grad()` that runs after the
backward and before the optimizer step that should apply those gradients,
with no backward in between: the step applies nothing. The reset must fully
cover the stepped optimizer (the same optimizer, or the module it was built
over). An `ok` annotation sits before resets in the right place, resets of
another network between a backward and a step, resets under a condition the
step is outside of, resets of one part of a model (freezing it for a step),
and resets followed by another backward.
"""
import torch
from torch import nn
from torch.amp import GradScaler

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU())
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.encoder(x))


class Generator(nn.Module):
    def __init__(self, nz=64):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 784), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(784, 1))

    def forward(self, x):
        return self.main(x.flatten(1))


def forward_backward(model, criterion, x, y):
    loss = criterion(model(x), y)
    loss.backward()
    # expect: TL304
    return loss.item()


def apply_update(optimizer):
    optimizer.step()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the textbook calls in the wrong order: the reset wipes the fresh gradients.
def reset_between(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL202
        optimizer.zero_grad()
        optimizer.step()


# Flagged: `model.zero_grad()` clears the same gradients when the optimizer was built over model.parameters().
def module_reset_between(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL202
        model.zero_grad(set_to_none=True)
        optimizer.step()


# Flagged: the AMP form: the reset sits between the scaled backward and scaler.step(optimizer).
def amp_reset_between(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        # expect: TL202
        optimizer.zero_grad(set_to_none=True)
        scaler.step(optimizer)
        scaler.update()


# Flagged: the backward happens in a helper; the reset still comes after it.
def backward_in_helper(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        forward_backward(model, criterion, x, y)
        # expect: TL202
        optimizer.zero_grad()
        optimizer.step()


# Flagged: gradient accumulation with the two calls swapped inside the condition.
def accumulation_swapped(train_loader, accum=4):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for i, (x, y) in enumerate(train_loader):
        loss = nn.functional.cross_entropy(model(x), y) / accum
        loss.backward()
        if (i + 1) % accum == 0:
            # expect: TL202
            optimizer.zero_grad()
            optimizer.step()


# Flagged: a trainer's step method; no loop is needed for the order to be wrong.
class Trainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def train_step(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        loss.backward()
        # expect: TL202
        self.optimizer.zero_grad()
        self.optimizer.step()
        return loss.item()


# Flagged: a GAN's discriminator update in the wrong order (the generator's update is right).
def gan_discriminator_swapped(loader, nz=64):
    netG, netD = Generator(nz).to(device), Discriminator().to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    for real in loader:
        b = real.size(0)
        fake = netG(torch.randn(b, nz, device=device))
        d_loss = bce(netD(real), torch.ones(b, 1)) + bce(netD(fake.detach()), torch.zeros(b, 1))
        d_loss.backward()
        # expect: TL202
        optD.zero_grad()
        optD.step()
        # ok: TL202
        optG.zero_grad()
        bce(netD(fake), torch.ones(b, 1)).backward()
        optG.step()


# Flagged: a `while` loop with the reset right before the step.
def while_loop_reset_between(batches, steps):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    step = 0
    while step < steps:
        x, y = next(batches)
        nn.functional.cross_entropy(model(x), y).backward()
        # expect: TL202
        optimizer.zero_grad()
        optimizer.step()
        step += 1


# Todo: the step happens in a helper given the optimizer as a parameter; matching the reset to it would need
# the parameter mapped to the caller's optimizer.
def step_in_helper(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        nn.functional.cross_entropy(model(x), y).backward()
        # todo-expect: TL202
        optimizer.zero_grad()
        apply_update(optimizer)


# Todo: the optimizer arrives as a parameter, so what it updates cannot be told; a module reset is not
# matched to it (precision first), even though here it is the same model.
def optimizer_parameter(model, optimizer, train_loader):
    for x, y in train_loader:
        nn.functional.cross_entropy(model(x), y).backward()
        # todo-expect: TL202
        model.zero_grad()
        optimizer.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: reset, forward, backward, step.
def textbook(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        # ok: TL202
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


# OK: step, then reset (nanoGPT's order); the previous iteration's backward is consumed by the step first.
def reset_after_step(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4)
    for x, y in train_loader:
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        # ok: TL202
        optimizer.zero_grad(set_to_none=True)


# OK: gradient accumulation: step and reset under the condition, in that order.
def accumulation(train_loader, accum=4):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for i, (x, y) in enumerate(train_loader):
        (nn.functional.cross_entropy(model(x), y) / accum).backward()
        if (i + 1) % accum == 0:
            optimizer.step()
            # ok: TL202
            optimizer.zero_grad()


# OK: a GAN resetting the generator between the discriminator's backward and step: a different network.
def gan_other_network_reset(loader, nz=64):
    netG, netD = Generator(nz).to(device), Discriminator().to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    for real in loader:
        b = real.size(0)
        netD.zero_grad()
        fake = netG(torch.randn(b, nz, device=device))
        d_loss = bce(netD(real), torch.ones(b, 1)) + bce(netD(fake.detach()), torch.zeros(b, 1))
        d_loss.backward()
        # ok: TL202
        netG.zero_grad()
        optD.step()
        bce(netD(fake), torch.ones(b, 1)).backward()
        optG.step()


# OK: skipping a bad batch: the reset runs only in a branch that leaves the step out.
def skip_nonfinite(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        if not torch.isfinite(loss):
            # ok: TL202
            optimizer.zero_grad()
            continue
        optimizer.step()
        optimizer.zero_grad()


# OK: a deliberate zero update for a bad batch: the reset is conditional and the step is outside the condition.
def zero_update_on_spike(train_loader, limit=10.0):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        # expect: TL304
        if loss.item() > limit:
            # ok: TL202
            optimizer.zero_grad()
        optimizer.step()
        optimizer.zero_grad()


# OK: a probe backward to log gradient norms, then a reset and the real backward before the step.
def probe_then_train(train_loader, aux_weight=0.1):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in train_loader:
        out = model(x)
        out.pow(2).mean().backward(retain_graph=True)
        probe = sum(p.grad.norm() for p in model.parameters() if p.grad is not None)
        # ok: TL202
        optimizer.zero_grad()
        nn.functional.cross_entropy(out, y).backward()
        optimizer.step()
        print(probe.item())


# OK: freezing the encoder for a step by clearing only its gradients: one part of what the optimizer updates.
def freeze_encoder_by_reset(train_loader, warmup):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for i, (x, y) in enumerate(train_loader):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        # ok: TL202
        model.encoder.zero_grad()
        optimizer.step()


# OK: gradient surgery (PCGrad-style): per-task gradients are collected, the reset clears them, and the
# combined gradient is written back into `.grad` before the step.
def gradient_surgery(train_loader, combine):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    params = list(model.parameters())
    for x, y in train_loader:
        out = model(x)
        grads = []
        for loss in (nn.functional.cross_entropy(out, y), out.pow(2).mean()):
            optimizer.zero_grad()
            loss.backward(retain_graph=True)
            grads.append([p.grad.clone() for p in params])
        # ok: TL202
        optimizer.zero_grad()
        for p, g in zip(params, combine(grads)):
            p.grad = g
        optimizer.step()


# OK: LBFGS resets inside its closure, which the step calls before each backward.
def lbfgs(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0)
    for x, y in train_loader:
        def closure():
            # ok: TL202
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            return loss

        optimizer.step(closure)


# OK: an encoder and a decoder optimizer: each reset after its own step.
def encoder_decoder_steps(train_loader):
    model = Net().to(device)
    opt_enc = torch.optim.Adam(model.encoder.parameters())
    opt_head = torch.optim.SGD(model.head.parameters(), lr=0.1)
    for x, y in train_loader:
        nn.functional.cross_entropy(model(x), y).backward()
        opt_enc.step()
        # ok: TL202
        opt_enc.zero_grad()
        opt_head.step()
        # ok: TL202
        opt_head.zero_grad()


# OK: a sharpness-aware (two-pass) step. The first backward finds the
# direction, the weights move, the gradients are cleared, and a second
# backward (here in a helper called twice) computes the gradients the step
# applies.
def loss_backward(model, x, y):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    return loss


def sharpness_aware_epoch(model, loader, base_opt, rho=0.05):
    for x, y in loader:
        base_opt.zero_grad()
        loss_backward(model, x, y)
        with torch.no_grad():
            eps = [rho * p.grad / (p.grad.norm() + 1e-12) for p in model.parameters()]
            for p, e in zip(model.parameters(), eps):
                p.add_(e)
        # ok: TL202
        base_opt.zero_grad()
        loss_backward(model, x, y)
        with torch.no_grad():
            for p, e in zip(model.parameters(), eps):
                p.sub_(e)
        base_opt.step()


# The same helper, but the reset comes after the only backward: the step
# applies nothing.
def cleared_before_step(model, loader, base_opt):
    for x, y in loader:
        loss_backward(model, x, y)
        # expect: TL202
        base_opt.zero_grad()
        base_opt.step()
