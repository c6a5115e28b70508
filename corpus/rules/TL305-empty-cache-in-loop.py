"""TL305 empty-cache-in-loop: fixtures.

An `expect` annotation sits before `torch.cuda.empty_cache()` (also through
`from torch.cuda import empty_cache` and module aliases) that runs on every
step of a step loop, training or evaluation, directly or in a helper the
loop calls. An `ok` annotation sits before calls that are accepted
practice: once per epoch, under an every-N-steps guard, after a loop,
inside a loop that is not a step loop, and calls of other things named
`empty_cache`.
"""
import torch
import torch as T
import torch.nn as nn
import torch.nn.functional as F
from torch.cuda import empty_cache

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


# Flagged: after every optimizer step.
def after_every_step(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL305
        torch.cuda.empty_cache()


# Flagged: before every forward ("to make room").
def before_every_forward(model, loader, opt):
    for x, y in loader:
        # expect: TL305
        torch.cuda.empty_cache()
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: imported by name.
def imported_name(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        del loss
        # expect: TL305
        empty_cache()


# Flagged: through a module alias.
def module_alias(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL305
        T.cuda.empty_cache()


def free_memory():
    # expect: TL305
    torch.cuda.empty_cache()


# Flagged: in a helper called on every step.
def in_helper(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        free_memory()


# Flagged: in every batch of an evaluation loop.
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    outs = []
    for x, _ in loader:
        outs.append(model(x.to(device)).argmax(1))
        # expect: TL305
        torch.cuda.empty_cache()
    return outs


# Flagged: on every micro-batch of gradient accumulation.
def micro_batches(model, loader, opt, accum=4):
    for x, y in loader:
        for xs, ys in zip(x.chunk(accum), y.chunk(accum)):
            loss = F.cross_entropy(model(xs.to(device)), ys.to(device)) / accum
            loss.backward()
            # expect: TL305
            torch.cuda.empty_cache()
        opt.step()
        opt.zero_grad()


# Flagged: under a condition that is not an every-N guard (it holds on every step but one).
def under_other_condition(model, loader, opt):
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step > 0:
            # expect: TL305
            torch.cuda.empty_cache()


# Flagged: the else branch of an every-N guard runs on the other N - 1 steps.
def else_of_guard(model, loader, opt):
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 0:
            pass
        else:
            # expect: TL305
            torch.cuda.empty_cache()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: once per epoch, after the step loop.
def once_per_epoch(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        # ok: TL305
        torch.cuda.empty_cache()


# OK: every N steps.
def every_n_steps(model, loader, opt):
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if (step + 1) % 1000 == 0:
            # ok: TL305
            torch.cuda.empty_cache()


# OK: every N steps, the guard written as a name.
def every_n_named(model, loader, opt, n):
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        cleanup_now = step % n == 0
        if cleanup_now:
            # ok: TL305
            torch.cuda.empty_cache()


# OK: after the loop, between training and evaluation.
def between_phases(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
    # ok: TL305
    torch.cuda.empty_cache()


# OK: a loop over model sizes (a benchmark sweep) is not a step loop; the step loop is inside the helper.
def sweep(sizes, loader):
    for n in sizes:
        model = Net(n).to(device)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        train_one(model, loader, opt)
        del model, opt
        # ok: TL305
        torch.cuda.empty_cache()


def train_one(model, loader, opt):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a helper called once per epoch frees the cache.
def cleanup():
    # ok: TL305
    torch.cuda.empty_cache()


def epochs_with_cleanup(model, loader, opt, epochs):
    for epoch in range(epochs):
        train_one(model, loader, opt)
        cleanup()


# OK: something else named empty_cache (a local cache object).
def own_cache(model, loader, opt, cache):
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        # ok: TL305
        cache.empty_cache()


# OK: an exception handler (an out-of-memory retry) runs when a step fails, not on every step.
def retry_on_oom(model, batch, opt, tries=3):
    x, y = batch
    for attempt in range(tries):
        try:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            break
        except torch.cuda.OutOfMemoryError:
            # ok: TL305
            torch.cuda.empty_cache()


# OK: a memory benchmark that builds a larger model for each configuration and
# frees the previous one first: every iteration is a one-off, not a hot step.
def peak_memory_by_width(widths, batch):
    peaks = []
    for width in widths:
        layer = nn.Linear(width, width).cuda()
        layer(torch.randn(batch, width, device="cuda")).sum().backward()
        peaks.append(torch.cuda.max_memory_allocated())
        del layer
        # ok: TL305
        torch.cuda.empty_cache()
    return peaks


# A criterion built in every step does not make the step a one-off.
def train_with_fresh_criterion(model, loader, optimizer):
    for x, y in loader:
        criterion = nn.CrossEntropyLoss()
        optimizer.zero_grad()
        criterion(model(x.cuda()), y.cuda()).backward()
        optimizer.step()
        # expect: TL305
        torch.cuda.empty_cache()


# OK (issue 22, ecosystem): a batch-size search that builds a model of an
# imported class per try, runs one step and frees it before the next try.
def largest_batch(config, device, max_batch=4096):
    from previous_chapters import GPTModel
    low, high = 1, max_batch
    while low <= high:
        batch = (low + high) // 2
        tokens = torch.randint(0, 100, (batch, 64), device=device)
        model = GPTModel(config).bfloat16().to(device)
        model.train()
        model(tokens).sum().backward()
        print(sum(p.numel() for p in model.parameters()))
        low = batch + 1
        del model, tokens
        # ok: TL305
        torch.cuda.empty_cache()
    return high


# OK: a benchmark over configurations whose helper builds the module with a
# local factory and frees it after each configuration.
def build_recurrent(hidden, device):
    return nn.LSTM(8, hidden).to(device)


def bench_one(hidden, device, x, iters):
    module = build_recurrent(hidden, device)
    for _ in range(iters):
        module(x)[0].sum().backward()
        for p in module.parameters():
            p.grad = None
    module(x)[0].sum().backward()


def bench_all(hiddens, device):
    x = torch.randn(16, 4, 8, device=device)
    for hidden in hiddens:
        bench_one(hidden, device, x, iters=10)
        # ok: TL305
        torch.cuda.empty_cache()


# The imported model is built once; each step frees the cache for nothing.
def steps_with_imported_model(config, loader, device):
    from previous_chapters import GPTModel
    model = GPTModel(config).to(device)
    opt = torch.optim.AdamW(model.parameters())
    for tokens in loader:
        opt.zero_grad()
        model(tokens.to(device)).sum().backward()
        opt.step()
        # expect: TL305
        torch.cuda.empty_cache()
