"""TL405 clip-before-unscale: fixtures.

An `expect` annotation sits before gradient clipping that runs after a
GradScaler-scaled backward and before the scaler's step, with no
`scaler.unscale_(optimizer)` in between (the loop body and the local
functions it calls, in order). An `ok` annotation sits before clipping that
follows an unscale_ (also one in a helper), clipping after the step, clipping
with a scaler built with a literal `enabled=False`, Accelerate's clipping
(it unscales), and clipping in plain fp32 training.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.cuda.amp import GradScaler as CudaScaler
from torch.nn.utils import clip_grad_norm_, clip_grad_value_
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(128, 256), nn.GELU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.body(x)


def clip(model, max_norm=1.0):
    # expect: TL405
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)


def unscale_and_clip(scaler, optimizer, model):
    scaler.unscale_(optimizer)
    # ok: TL405
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the textbook order with the unscale_ forgotten.
def train_amp(loader, epochs):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    scaler = torch.amp.GradScaler("cuda")
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(model(x.to(device)), y.to(device))
            scaler.scale(loss).backward()
            # expect: TL405
            nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
            scaler.step(optimizer)
            scaler.update()


# Flagged: clipping by value, imported by name, deprecated scaler alias.
def train_value_clip(loader):
    model = Classifier().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    # expect: TL402
    scaler = CudaScaler()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        scaler.scale(loss).backward()
        # expect: TL405
        clip_grad_value_(model.parameters(), clip_value=0.5)
        scaler.step(opt)
        scaler.update()


# Flagged: a trainer class; the scaler, model and optimizer are attributes.
class Trainer:
    def __init__(self, model, loader, use_amp=True):
        self.model = DDP(model.to(device))
        self.loader = loader
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
        self.grad_norm_clip = 1.0

    def _run_batch(self, x, y):
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=True):
            loss = F.cross_entropy(self.model(x), y)
        self.scaler.scale(loss).backward()
        # expect: TL405
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_norm_clip)
        self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.detach()

    def run_epoch(self):
        for x, y in self.loader:
            self._run_batch(x.to(device), y.to(device))


# Flagged: the clipping lives in a helper the loop calls (clip() above).
def train_with_helper(loader):
    model = Classifier().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    scaler = torch.amp.GradScaler()
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        clip(model)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# Flagged: a manual clamp of every parameter's gradient.
def train_manual_clamp(loader):
    model = Classifier().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        for p in model.parameters():
            if p.grad is not None:
                # expect: TL405
                p.grad.clamp_(-1.0, 1.0)
        scaler.step(optimizer)
        scaler.update()


# Flagged: the clip only under a configuration flag is still before unscale_.
def train_optional_clip(loader, args):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr)
    scaler = torch.amp.GradScaler(enabled=args.amp)
    for step, (x, y) in enumerate(loader):
        with torch.autocast("cuda", enabled=args.amp):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        if args.clip_grad > 0:
            # expect: TL405
            grad_norm = clip_grad_norm_(model.parameters(), args.clip_grad)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# Flagged: a train_step function the trainer of another module calls; the
# function is the iteration.
def train_step(model, batch, optimizer, scaler):
    x, y = batch
    with torch.autocast("cuda", dtype=torch.float16):
        loss = F.cross_entropy(model(x), y)
    scaler.scale(loss).backward()
    # expect: TL405
    torch.nn.utils.clip_grad.clip_grad_norm_(model.parameters(), 5.0)
    scaler.step(optimizer)
    scaler.update()
    optimizer.zero_grad(set_to_none=True)
    return loss.detach()


# Flagged: a GAN's two optimizers, one scaler; the discriminator's clip
# comes before its unscale_.
def train_gan(loader, netG, netD, latent=64):
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    scaler = torch.amp.GradScaler("cuda")
    for real, _ in loader:
        z = torch.randn(real.size(0), latent, device=device)
        with torch.autocast("cuda"):
            fake = netG(z)
            d_loss = F.softplus(netD(fake.detach())).mean() + F.softplus(-netD(real)).mean()
        optD.zero_grad()
        scaler.scale(d_loss).backward()
        # expect: TL405
        nn.utils.clip_grad_norm_(netD.parameters(), 10.0)
        scaler.step(optD)
        with torch.autocast("cuda"):
            g_loss = F.softplus(-netD(fake)).mean()
        optG.zero_grad()
        scaler.scale(g_loss).backward()
        scaler.unscale_(optG)
        # ok: TL405
        nn.utils.clip_grad_norm_(netG.parameters(), 10.0)
        scaler.step(optG)
        scaler.update()


# ---------------------------------------------------------------------------
# Correct
# ---------------------------------------------------------------------------


# OK: unscale_ before the clip (the documented recipe).
def train_unscaled(loader):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        # ok: TL405
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()


# OK: the unscale_ and the clip in a helper (unscale_and_clip above).
def train_helper_unscales(loader):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        unscale_and_clip(scaler, optimizer, model)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# OK: unscale_ under the same accumulation condition as the clip.
def train_accumulate(loader, accum=4):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("cuda")
    for i, (x, y) in enumerate(loader):
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y) / accum
        scaler.scale(loss).backward()
        if (i + 1) % accum == 0:
            scaler.unscale_(optimizer)
            # ok: TL405
            clip_grad_norm_(model.parameters(), 1.0)
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad(set_to_none=True)


# OK: a scaler disabled with a literal enabled=False does not scale.
def train_disabled_scaler(loader):
    model = Classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        # ok: TL405
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()


# OK: plain fp32 training clips real gradients.
def train_fp32(loader):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    for x, y in loader:
        loss = F.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        # ok: TL405
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()


# OK: Accelerate unscales inside its clip_grad_norm_.
def train_accelerate(accelerator, model, optimizer, loader):
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        with accelerator.autocast():
            loss = F.cross_entropy(model(x), y)
        accelerator.backward(loss)
        if accelerator.sync_gradients:
            # ok: TL405
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad()


# OK: a norm measured after the step (logging), not a clip before it.
def train_log_norm(loader):
    model = Classifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters())
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.cross_entropy(model(x), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        # ok: TL405
        total = torch.nn.utils.clip_grad_norm_(model.parameters(), float("inf"))
        optimizer.zero_grad()
        print(total)


# OK: a trainer whose optimizer step unscales first, clipping in between.
class AmpTrainer:
    def __init__(self, model, loader, clip_norm=1.0):
        self.model = model.to(device)
        self.loader = loader
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-4)
        self.scaler = torch.amp.GradScaler("cuda")
        self.clip_norm = clip_norm

    def optimizer_step(self):
        self.scaler.unscale_(self.opt)
        if self.clip_norm:
            # ok: TL405
            nn.utils.clip_grad_norm_(self.model.parameters(), self.clip_norm)
        self.scaler.step(self.opt)
        self.scaler.update()
        self.opt.zero_grad(set_to_none=True)

    def fit(self):
        for x, y in self.loader:
            with torch.autocast("cuda", dtype=torch.float16):
                loss = F.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            self.optimizer_step()
