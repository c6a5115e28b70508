"""TL307 allocation-in-loop (opt-in): fixtures.

An `expect` annotation sits before a tensor factory, on every step of a
step loop, whose shape (and other arguments) the loop never changes and
whose result is scratch: used within the iteration and then dropped. An
`ok` annotation sits before allocations that cannot be hoisted as they
are: shapes that follow the batch, results kept across iterations
(appended, stored in an attribute, returned), factories under an
every-N-steps guard or outside the step loop, and arguments the loop
re-binds.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
BATCH, HIDDEN = 64, 128


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


# Flagged: a fixed-size initial hidden state allocated on every step.
def hidden_state_every_step(rnn, loader, opt):
    for x, y in loader:
        # expect: TL307
        h0 = torch.zeros(1, BATCH, HIDDEN, device=device)
        out, _ = rnn(x.to(device), h0)
        loss = F.cross_entropy(out[:, -1], y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: GAN labels of a constant batch size.
def gan_labels(netD, loader, optD, batch_size):
    for real, _ in loader:
        # expect: TL307
        ones = torch.ones(batch_size, 1, device=device)
        loss = F.binary_cross_entropy_with_logits(netD(real.to(device)), ones)
        optD.zero_grad()
        loss.backward()
        optD.step()


# Flagged: noise of a constant shape passed straight into a call.
def noise_as_argument(netG, netD, loader, optD, nz=16):
    for real, _ in loader:
        # expect: TL307
        fake = netG(torch.randn(BATCH, nz, device=device))
        loss = F.softplus(netD(fake.detach())).mean() + F.softplus(-netD(real.to(device))).mean()
        optD.zero_grad()
        loss.backward()
        optD.step()


# Flagged: a scratch buffer filled by index, then dropped.
def scatter_buffer(model, loader, opt, num_classes=10):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL307
        onehot = torch.empty(BATCH, num_classes, device=device)
        onehot.zero_()
        onehot[torch.arange(BATCH, device=device), y] = 1.0
        loss = (F.log_softmax(model(x), 1) * -onehot).sum(1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def make_mask(n):
    # expect: TL307
    return torch.ones(n, n, device=device).triu(1)


# Flagged: a helper called on every step allocates a constant-size mask.
def mask_in_helper(model, loader, opt, seq_len):
    for x, y in loader:
        mask = make_mask(seq_len)
        step(model, opt, x.to(device) @ mask, y.to(device))


# Flagged: a module-level constant shape in an evaluation loop.
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    for x, _ in loader:
        # expect: TL307
        pad = torch.full((BATCH, 4), -1.0, device=device)
        model(torch.cat([x.to(device), pad], 1))


# Flagged: the arange of positions for a fixed context length.
def positions(model, loader, opt, block_size):
    for idx, targets in loader:
        # expect: TL307
        pos = torch.arange(0, block_size, dtype=torch.long, device=device)
        step(model, opt, idx.to(device) + pos, targets.to(device))


# Flagged: an attribute bound only in __init__ is as constant as a literal.
class Trainer:
    def __init__(self, model, opt):
        self.model, self.opt = model, opt
        self.shape = (BATCH, HIDDEN)

    def fit(self, loader):
        for x, y in loader:
            # expect: TL307
            z = torch.zeros(self.shape, device=device)
            step(self.model, self.opt, x.to(device) + z.sum(), y.to(device))


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the shape follows the batch, which changes (the last batch is smaller).
def shape_follows_batch(netD, loader, optD):
    for real, _ in loader:
        real = real.to(device)
        # ok: TL307
        ones = torch.ones(real.size(0), 1, device=device)
        loss = F.binary_cross_entropy_with_logits(netD(real), ones)
        optD.zero_grad()
        loss.backward()
        optD.step()


# OK: the result is kept (appended) across iterations.
def kept_across_iterations(model, loader, opt, history):
    for x, y in loader:
        step(model, opt, x.to(device), y.to(device))
        # ok: TL307
        marker = torch.zeros(1, device=device)
        history.append(marker)


# OK: stored into an attribute: it outlives the iteration.
class Cache:
    def fit(self, model, loader, opt):
        for x, y in loader:
            step(model, opt, x.to(device), y.to(device))
            # ok: TL307
            self.last = torch.zeros(4, device=device)


# OK: allocated once, before the loop, and refilled.
def hoisted(model, loader, opt):
    # ok: TL307
    buf = torch.empty(BATCH, HIDDEN, device=device)
    for x, y in loader:
        buf.normal_()
        step(model, opt, x.to(device) + buf.mean(), y.to(device))


# OK: under an every-N-steps guard.
def under_guard(model, loader, opt):
    for i, (x, y) in enumerate(loader):
        step(model, opt, x.to(device), y.to(device))
        if i % 100 == 0:
            # ok: TL307
            probe = torch.randn(8, 32, device=device)
            with torch.no_grad():
                model(probe)


# OK: an argument the loop re-binds (a growing sequence length).
def growing_length(model, loader, opt):
    length = 1
    for x, y in loader:
        length = length + 1
        # ok: TL307
        pad = torch.zeros(BATCH, length, device=device)
        step(model, opt, torch.cat([x.to(device), pad], 1), y.to(device))


# OK: a loop that neither trains nor evaluates (building a list of tensors) is no step loop.
def build_list(n):
    out = []
    for i in range(n):
        # ok: TL307
        out.append(torch.zeros(3))
    return out


# OK: the helper's result is returned to the caller, which keeps it.
def make_state(n):
    # ok: TL307
    return torch.zeros(n, device=device)


def state_kept(model, loader, opt, states):
    for x, y in loader:
        step(model, opt, x.to(device), y.to(device))
        states.append(make_state(x.size(0)))
