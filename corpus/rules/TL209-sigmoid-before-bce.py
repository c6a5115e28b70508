"""TL209 sigmoid-before-bce: fixtures.

An `expect` annotation sits before a binary cross-entropy loss
(`F.binary_cross_entropy`, an `nn.BCELoss` criterion) fed by an explicit
sigmoid in the same function (`torch.sigmoid`, `F.sigmoid`, `.sigmoid()`,
`torch.special.expit`, an `nn.Sigmoid` module called there), and before any
such loss computed inside an autocast region, where PyTorch refuses it. An
`ok` annotation sits before the DCGAN/VAE form (a model whose last layer is a
sigmoid feeding BCELoss outside autocast), BCE-with-logits losses (also under
autocast), and sigmoids used only for metrics.
"""
import torch
import torch.nn.functional as F
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Discriminator(nn.Module):
    """DCGAN-style: the last layer is nn.Sigmoid."""

    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1),
                                  nn.Sigmoid())

    def forward(self, x):
        return self.main(x)


class VAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Linear(784, 40)
        self.dec = nn.Linear(20, 784)

    def forward(self, x):
        mu, logvar = self.enc(x.flatten(1)).chunk(2, dim=1)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return torch.sigmoid(self.dec(z)), mu, logvar


def bce_term(pred, target):
    return F.binary_cross_entropy(pred, target)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: an explicit torch.sigmoid into F.binary_cross_entropy.
def explicit_sigmoid(logits, targets):
    # expect: TL209
    return F.binary_cross_entropy(torch.sigmoid(logits), targets)


# Flagged: `.sigmoid()` into a BCELoss criterion.
def tensor_method(model, loader, optimizer):
    criterion = nn.BCELoss()
    for x, y in loader:
        optimizer.zero_grad()
        # expect: TL209
        loss = criterion(model(x).sigmoid(), y)
        loss.backward()
        optimizer.step()


# Flagged: through a name and a reshape.
def named_probs(logits, targets):
    probs = F.sigmoid(logits)
    # expect: TL209
    return nn.BCELoss()(probs.view(-1), targets.view(-1))


# Flagged: an nn.Sigmoid module called in the function.
def sigmoid_module(logits, targets):
    act = nn.Sigmoid()
    criterion = nn.BCELoss(reduction="sum").to(device)
    # expect: TL209
    return criterion(act(logits), targets)


# Flagged: torch.special.expit is the sigmoid.
def expit(logits, targets):
    # expect: TL209
    return F.binary_cross_entropy(torch.special.expit(logits), targets)


# Flagged: the DCGAN discriminator (sigmoid last layer) is fine in fp32, but BCELoss inside autocast raises.
def dcgan_under_autocast(loader, netD, optimizer):
    criterion = nn.BCELoss()
    for real, _ in loader:
        label = torch.ones(real.size(0), device=device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            output = netD(real).view(-1)
            # expect: TL209
            loss = criterion(output, label)
        loss.backward()
        optimizer.step()


# Flagged: the functional form under autocast, one loss helper deep.
def vae_under_autocast(loader, model, optimizer):
    for x, _ in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            recon, mu, logvar = model(x)
            # expect: TL209
            rec = F.binary_cross_entropy(recon, x.flatten(1), reduction="sum")
            kld = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        (rec + kld).backward()
        optimizer.step()


def autocast_step(model, x, y):
    with torch.autocast("cuda", dtype=torch.float16):
        return bce_in_autocast_helper(model(x), y)


def bce_in_autocast_helper(pred, y):
    # expect: TL209
    return nn.functional.binary_cross_entropy(pred, y)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: pytorch/examples DCGAN: a sigmoid last layer and BCELoss, outside autocast.
def dcgan_fp32(loader, optimizer):
    netD = Discriminator().to(device)
    criterion = nn.BCELoss()
    for real, _ in loader:
        optimizer.zero_grad()
        output = netD(real).view(-1)
        # ok: TL209
        loss = criterion(output, torch.ones_like(output))
        loss.backward()
        optimizer.step()


# OK: pytorch/examples VAE: the sigmoid is in the model's forward, the loss outside autocast.
def vae_fp32(loader, optimizer):
    model = VAE().to(device)
    for x, _ in loader:
        optimizer.zero_grad()
        recon, mu, logvar = model(x)
        # ok: TL209
        loss = F.binary_cross_entropy(recon, x.flatten(1), reduction="sum")
        loss = loss - 0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
        loss.backward()
        optimizer.step()


# OK: BCE with logits; the sigmoid only for the accuracy.
def with_logits(model, loader, optimizer):
    criterion = nn.BCEWithLogitsLoss()
    for x, y in loader:
        optimizer.zero_grad()
        logits = model(x)
        # ok: TL209
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        print((torch.sigmoid(logits).round() == y).float().mean().item())


# OK: BCE with logits is safe under autocast.
def with_logits_under_autocast(model, loader, optimizer):
    for x, y in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            # ok: TL209
            loss = F.binary_cross_entropy_with_logits(model(x), y)
        loss.backward()
        optimizer.step()


# OK: an autocast region disabled by a literal `enabled=False` runs in full precision.
def disabled_autocast(loader, optimizer):
    netD = Discriminator().to(device)
    criterion = nn.BCELoss()
    for real, _ in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=False):
            # ok: TL209
            loss = criterion(netD(real).view(-1), torch.ones(real.size(0)))
        loss.backward()
        optimizer.step()


# OK: autocast switched off around the loss inside an autocast region: the BCE runs in full precision.
def nested_autocast_off(loader, optimizer):
    netD = Discriminator().to(device)
    criterion = nn.BCELoss()
    for real, _ in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            output = netD(real).view(-1)
            with torch.autocast("cuda", enabled=False):
                # ok: TL209
                loss = criterion(output.float(), torch.ones(real.size(0), device=device))
        loss.backward()
        optimizer.step()


# OK: a CPU autocast region: the refusal is registered for GPU autocast, so a literal "cpu" device is left alone.
def cpu_autocast(loader, optimizer):
    netD = Discriminator()
    criterion = nn.BCELoss()
    for real, _ in loader:
        optimizer.zero_grad()
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            # ok: TL209
            loss = criterion(netD(real).view(-1), torch.ones(real.size(0)))
        loss.backward()
        optimizer.step()


# OK: a sigmoid as the target (second argument) is a soft label, not the prediction.
def soft_labels(pred_probs, teacher_logits):
    # ok: TL209
    return F.binary_cross_entropy(pred_probs, torch.sigmoid(teacher_logits))


# OK: the model runs under autocast, the BCE after the block on an fp32 copy.
def bce_after_autocast(loader, optimizer):
    netD = Discriminator().to(device)
    criterion = nn.BCELoss()
    for real, _ in loader:
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            output = netD(real).view(-1)
        # ok: TL209
        loss = criterion(output.float(), torch.ones(real.size(0), device=device))
        loss.backward()
        optimizer.step()


# OK: the loss helper is called outside autocast here.
def helper_outside_autocast(pred, y):
    # ok: TL209
    return bce_term(pred, y)
