"""TL301 host-tensor-moved-to-device: fixtures.

An `expect` annotation sits before a `.cuda()` / `.to(device)` that moves a
tensor a factory has just filled in host memory, on every step of a step
loop (directly, through a helper called from the loop, or behind
`Variable(...)` and host-side casts). An `ok` annotation sits before forms
a naive check would confuse with it: factories given `device=`, moves done
once before the loop or once per epoch, moves under an every-N-steps guard,
`.to(dtype)` casts, `*_like` factories, data that really lives on the host.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self, in_features=32, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x):
        return self.fc(x)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: label smoothing targets filled on the host and copied every step.
def smoothing_targets_on_host(model, loader, opt, num_classes=10):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL301
        soft = torch.full((y.size(0), num_classes), 0.1 / num_classes).to(device)
        soft.scatter_(1, y.unsqueeze(1), 0.9)
        loss = torch.sum(-soft * F.log_softmax(model(x), dim=1), dim=1).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: `.cuda()` on a fresh `torch.zeros`.
def zeros_then_cuda(model, loader, opt):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        # expect: TL301
        h0 = torch.zeros(1, x.size(0), 32).cuda()
        loss = F.cross_entropy(model(x + h0.mean()), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: noise for a GAN generator drawn on the host every step.
def gan_noise_on_host(netG, netD, loader, optD, nz=16):
    for real, _ in loader:
        real = real.to(device)
        # expect: TL301
        z = torch.randn(real.size(0), nz).to(device)
        d_loss = F.softplus(-netD(real)).mean() + F.softplus(netD(netG(z).detach())).mean()
        optD.zero_grad()
        d_loss.backward()
        optD.step()


# Flagged: the PyTorch-GAN idiom, a factory wrapped in `Variable(...)` and moved.
def variable_wrapper(netD, loader, opt):
    for imgs, _ in loader:
        imgs = imgs.cuda()
        # expect: TL301
        valid = Variable(torch.ones(imgs.size(0), 1)).cuda()
        loss = F.binary_cross_entropy_with_logits(netD(imgs), valid)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a host-side cast between the factory and the move does not make it a device tensor.
def arange_cast_then_moved(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL301
        positions = torch.arange(x.size(1)).long().to(device)
        loss = F.cross_entropy(model(x + positions.float()), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


def make_mask(n):
    # expect: TL301
    return torch.eye(n).to(device)


# Flagged: the factory sits in a helper that the step loop calls on every step.
def mask_from_helper(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        mask = make_mask(x.size(1))
        loss = F.cross_entropy(model(x @ mask), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: an evaluation loop is a step loop too (a forward per batch).
@torch.no_grad()
def evaluate_with_host_buffer(model, loader):
    model.eval()
    correct = torch.zeros((), device=device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL301
        weights = torch.linspace(0.5, 1.5, x.size(0)).to(device)
        correct += ((model(x).argmax(1) == y).float() * weights).sum()
    return correct


# Flagged: `device="cpu"` spelled out is still a host allocation, and `.to(device, dtype)` moves it.
def explicit_cpu_device(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL301
        bias = torch.rand(x.size(0), 1, device="cpu").to(device, torch.float32)
        loss = F.cross_entropy(model(x + bias), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: `torch.empty(...).normal_()` fills on the host before the copy.
def empty_filled_on_host(model, loader, opt, sigma=0.01):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL301
        jitter = torch.empty(x.shape).normal_(0, sigma).cuda(non_blocking=True)
        loss = F.cross_entropy(model(x + jitter), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the factory is told where to allocate.
def factory_with_device(model, loader, opt, nz=16):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        z = torch.randn(x.size(0), nz, device=device)
        loss = F.cross_entropy(model(x + z.mean()), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: moved once, before the loop.
def moved_once_before_loop(model, loader, opt):
    # ok: TL301
    class_weights = torch.ones(10).to(device)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y, weight=class_weights)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: once per epoch (the epoch loop runs no step of its own), not per step.
def fixed_noise_per_epoch(netG, netD, loader, optD, epochs, nz=16):
    for epoch in range(epochs):
        # ok: TL301
        fixed = torch.randn(64, nz).to(device)
        for real, _ in loader:
            real = real.to(device)
            d_loss = F.softplus(-netD(real)).mean()
            optD.zero_grad()
            d_loss.backward()
            optD.step()
        with torch.no_grad():
            netG(fixed)


# OK: under an every-N-steps guard the move is not per step.
def probe_every_hundred_steps(model, loader, opt):
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            # ok: TL301
            probe = torch.randn(4, 32).to(device)
            with torch.no_grad():
                model(probe)


# OK: `.to(torch.float16)` is a dtype cast on the host, not a transfer.
def dtype_cast_only(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL301
        # expect: TL307
        scale = torch.ones(1).to(torch.float16)
        loss = F.cross_entropy(model(x), y) * scale.item()
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: `*_like` factories follow their argument's device; RULES.md excludes them.
def like_factories(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL301
        noise = torch.randn_like(x).to(device)
        loss = F.cross_entropy(model(x + noise), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: the data comes from the host (a numpy batch); moving it is the only way in.
def host_data_is_moved(model, batches, opt):
    for arr, y in batches:
        # ok: TL301
        x = torch.from_numpy(arr).to(device)
        # ok: TL301
        t = torch.tensor(y).to(device)
        loss = F.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a loop that neither trains nor evaluates (building a lookup table) is no step loop.
def build_tables(n):
    tables = []
    for k in range(n):
        # ok: TL301
        tables.append(torch.arange(k).to(device))
    return tables


# OK: a factory moved to the CPU is no host-to-device copy.
def moved_to_cpu(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL301
        # expect: TL307
        cpu_copy = torch.zeros(3).to("cpu")
        loss = F.cross_entropy(model(x), y) + cpu_copy.sum().item()
        opt.zero_grad()
        loss.backward()
        opt.step()


# Todo: a module's forward runs on every step, but the engine does not treat `model(x)` as a call of
# `forward`, so the forward's body is not known to be per step.
class PositionalNet(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.fc = nn.Linear(d, 10)

    def forward(self, x):
        # todo-expect: TL301
        pos = torch.arange(x.size(1)).float().to(x.device)
        return self.fc(x + pos)


def train_positional(loader):
    model = PositionalNet().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a test that trains one step for each configuration, each with a fresh
# model: the loop is a sweep, every move a one-off per configuration.
def one_step_per_config(configs):
    for width, lr in configs:
        net = nn.Linear(width, 1).cuda()
        opt = torch.optim.SGD(net.parameters(), lr=lr)
        # ok: TL301
        x = torch.randn(4, width).cuda()
        net(x).sum().backward()
        opt.step()


def build_and_measure(width):
    net = nn.Linear(width, width).cuda()
    # ok: TL301
    net(torch.randn(8, width).cuda()).sum().backward()
    return torch.cuda.max_memory_allocated()


def measure_widths(widths):
    # The model is built by the helper each iteration runs.
    peaks = []
    for w in widths:
        peaks.append(build_and_measure(w))
        torch.cuda.reset_peak_memory_stats()
    return peaks


def train_fixed_model(loader, width=64):
    net = nn.Linear(width, 1).cuda()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for x in loader:
        opt.zero_grad()
        # expect: TL301
        noise = torch.randn(x.shape[0], width).cuda()
        net(x.cuda() + noise).sum().backward()
        opt.step()


# A check that runs a freshly built layer once on each device: a one-off per
# device. The loop only runs forwards, and the layer each runs is built in the
# same iteration from constants: no module outlives the iteration, so the
# loop is no step loop (the semantic model's fresh values, model/fresh.c).
def check_each_device(devices):
    outs = []
    for dev in devices:
        layer = nn.Conv2d(1, 1, 1).to(dev)
        # ok: TL301
        outs.append(layer(torch.randn(1, 1, 4, 4).to(dev)).dtype)
    return outs


# The same check over devices the function lists itself: a loop over a
# handful of constants runs a handful of times, so none of its forwards is a
# step of a hot loop.
def check_listed_devices(new_torch):
    outs = []
    if new_torch:
        devices = ["cpu", "cuda"]
    else:
        devices = ["cuda"]
    for dev in devices:
        layer = nn.Conv2d(1, 1, 1).to(dev)
        # ok: TL301
        outs.append(layer(torch.randn(1, 1, 4, 4).to(dev)).dtype)
    return outs


def latency_by_batch(model):
    times = {}
    for bs in (1, 8, 32):
        # ok: TL301
        x = torch.randn(bs, 3, 224, 224).cuda()
        times[bs] = model(x).shape
    return times


# Over data, or over names the function does not fill with constants: hot.
def score_batches(model, batches):
    for batch in [batches[0], batches[-1]]:
        # expect: TL301
        mask = torch.ones(batch.shape[0]).cuda()
        model(batch.cuda() * mask[:, None]).argmax(1).tolist()


def score_steps(model, width):
    for _ in range(64):
        # expect: TL301, TL307
        model(torch.ones(4, width).cuda()).sum().item()
