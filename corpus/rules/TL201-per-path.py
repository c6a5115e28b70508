"""TL201 missing-zero-grad: a reset on some paths of the iteration only.

A flag the run never changes (`args.amp`, `self.use_amp`, `scaler is not
None`, a string option compared with a constant) picks one branch for every
iteration. A reset that only one branch of such a flag runs leaves the other
branch stepping with the gradients of all the steps before: an `expect`
annotation sits before those steps. A condition that changes from one
iteration to the next (`(i + 1) % accum == 0`) is no flag: a reset under it
still counts, as gradient accumulation has it. The `ok` annotations sit before
steps every path of whose flags runs a reset.
"""
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(x)


def clear_and_step(model, optimizer, loss):
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def reset_grads(optimizer):
    optimizer.zero_grad(set_to_none=True)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the AMP branch resets, the plain branch does not; without --amp
# every step applies the sum of all gradients so far.
def amp_branch_only(args, loader):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        if args.amp:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            # ok: TL201
            scaler.step(optimizer)
            scaler.update()
        else:
            loss = nn.functional.cross_entropy(model(x), y)
            loss.backward()
            # expect: TL201
            optimizer.step()


# Flagged: the reset only runs when no accumulation is configured; with
# accum_steps > 1 nothing ever resets (the step is not under a step counter).
def reset_only_without_accumulation(args, loader):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        if args.accum_steps == 1:
            optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        # expect: TL201
        optimizer.step()


# Flagged: an elif chain over an option; the "sgd" path resets, the other
# optimizers' path does not.
def option_chain_one_resets(cfg, loader):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        if cfg.optim == "sgd":
            optimizer.zero_grad()
            loss.backward()
            # ok: TL201
            optimizer.step()
        elif cfg.optim == "adam":
            loss.backward()
            # expect: TL201
            optimizer.step()


# Flagged: a trainer's attribute flag set once in __init__.
class FlagTrainer:
    def __init__(self, use_amp):
        self.use_amp = use_amp
        self.model = Net()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = torch.amp.GradScaler("cuda")

    def fit(self, loader):
        for x, y in loader:
            loss = nn.functional.cross_entropy(self.model(x), y)
            if not self.use_amp:
                loss.backward()
                # expect: TL201
                self.optimizer.step()
            else:
                self.optimizer.zero_grad()
                self.scaler.scale(loss).backward()
                # ok: TL201
                self.scaler.step(self.optimizer)
                self.scaler.update()


# Flagged: a local that is bound once before the loop decides; the reset
# lives in a helper called on one branch only.
def helper_on_one_branch(loader, use_scaler):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda") if use_scaler else None
    for x, y in loader:
        if scaler is not None:
            reset_grads(optimizer)
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: the flag is tested in the step helper the loop calls: its plain
# branch steps without the reset the AMP branch makes.
class StepHelperTrainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = Net()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = torch.amp.GradScaler("cuda")

    def train_step(self, x, y):
        if self.cfg.fp16:
            self.optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda"):
                loss = nn.functional.cross_entropy(self.model(x), y)
            self.scaler.scale(loss).backward()
            # ok: TL201
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss = nn.functional.cross_entropy(self.model(x), y)
            loss.backward()
            # expect: TL201
            self.optimizer.step()
        return loss.detach()

    def fit(self, loader):
        for x, y in loader:
            self.train_step(x, y)


# Flagged: a parameter turns the reset off; every call that passes False
# steps with the gradients of all the iterations before.
def reset_switch_parameter(model, loader, optimizer=None, do_zero_grad=True):
    for x, y in loader:
        if optimizer and do_zero_grad:
            optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        if optimizer:
            # expect: TL201
            optimizer.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: both branches of the flag reset.
def reset_on_both_branches(args, loader):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        if args.amp:
            optimizer.zero_grad()
            with torch.autocast("cuda"):
                loss = nn.functional.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            # ok: TL201
            scaler.step(optimizer)
            scaler.update()
        else:
            optimizer.zero_grad(set_to_none=True)
            nn.functional.cross_entropy(model(x), y).backward()
            # ok: TL201
            optimizer.step()


# OK: the reset comes before the flag's branches.
def reset_before_branch(args, loader):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(x), y)
        if args.amp:
            scaler.scale(loss).backward()
            # ok: TL201
            scaler.step(optimizer)
            scaler.update()
        else:
            loss.backward()
            # ok: TL201
            optimizer.step()


# OK: each branch resets in its own way: the optimizer's set_to_none on one,
# `p.grad = None` over the model's parameters on the other.
def two_reset_forms(args, loader):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in loader:
        if args.fused_reset:
            optimizer.zero_grad(set_to_none=True)
        else:
            for p in model.parameters():
                p.grad = None
        nn.functional.cross_entropy(model(x), y).backward()
        # ok: TL201
        optimizer.step()


# OK: gradient accumulation under a step counter, with a flag elsewhere in
# the iteration: the counter's condition changes every iteration, so its
# reset counts.
def accumulation_with_flag(args, loader, accum_steps=4):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for i, (x, y) in enumerate(loader):
        loss = nn.functional.cross_entropy(model(x), y) / accum_steps
        if args.clip:
            loss = loss.clamp(max=10.0)
        loss.backward()
        if (i + 1) % accum_steps == 0:
            # ok: TL201
            optimizer.step()
            optimizer.zero_grad()


# OK: the flag picks a helper on each branch, and both helpers reset.
def helper_on_both_branches(args, loader):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in loader:
        if args.amp:
            reset_grads(optimizer)
        else:
            optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        # ok: TL201
        optimizer.step()


# OK: the same flag decides the reset and the step: every path that steps
# has reset.
def same_flag_twice(args, loader):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        if args.train:
            optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        if args.train:
            loss.backward()
            # ok: TL201
            optimizer.step()


# OK: the reset and the step both live in a helper the plain branch calls;
# the other branch resets itself.
def step_helper_on_one_branch(args, loader):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        loss = nn.functional.cross_entropy(model(x), y)
        if not args.amp:
            clear_and_step(model, optimizer, loss)
        else:
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            # ok: TL201
            scaler.step(optimizer)
            scaler.update()


class BaseTrainer:
    def __init__(self):
        self.model = Net()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def reset(self):
        self.optimizer.zero_grad()


# OK: the reset is a base class method, called before the flag's branches.
class AmpTrainer(BaseTrainer):
    def __init__(self, use_amp):
        super().__init__()
        self.use_amp = use_amp
        self.scaler = torch.amp.GradScaler("cuda")

    def fit(self, loader):
        for x, y in loader:
            self.reset()
            loss = nn.functional.cross_entropy(self.model(x), y)
            if self.use_amp:
                self.scaler.scale(loss).backward()
                # ok: TL201
                self.scaler.step(self.optimizer)
                self.scaler.update()
            else:
                loss.backward()
                # ok: TL201
                self.optimizer.step()


# OK: a condition on a value the iteration computes is no flag: a warm-up
# that only accumulates is the author's choice, and the reset under it counts.
def reset_after_warmup(loader, warmup):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(loader):
        if step >= warmup:
            optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        # ok: TL201
        optimizer.step()


# OK: the step helper tests the flag, and the reset sits in the loop's own
# body, before the call.
class LoopResetsHelperSteps:
    def __init__(self, cfg):
        self.cfg = cfg
        self.model = Net()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.scaler = torch.amp.GradScaler("cuda")

    def train_step(self, x, y):
        loss = nn.functional.cross_entropy(self.model(x), y)
        if self.cfg.fp16:
            self.scaler.scale(loss).backward()
            # ok: TL201
            self.scaler.step(self.optimizer)
            self.scaler.update()
        else:
            loss.backward()
            # ok: TL201
            self.optimizer.step()

    def fit(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            self.train_step(x, y)


# OK: the step runs two calls below the loop, in a helper that the flag's
# plain branch calls after its reset; the AMP branch's helper resets itself.
class TwoLevelTrainer:
    def __init__(self, use_amp):
        self.use_amp = use_amp
        self.model = Net()
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.scaler = torch.amp.GradScaler("cuda")

    def _plain(self, x, y):
        nn.functional.cross_entropy(self.model(x), y).backward()
        # ok: TL201
        self.optimizer.step()

    def _amp(self, x, y):
        self.optimizer.zero_grad()
        self.scaler.scale(nn.functional.cross_entropy(self.model(x), y)).backward()
        # ok: TL201
        self.scaler.step(self.optimizer)
        self.scaler.update()

    def step(self, x, y):
        if not self.use_amp:
            self.optimizer.zero_grad()
            self._plain(x, y)
        else:
            self._amp(x, y)

    def fit(self, loader):
        for x, y in loader:
            self.step(x, y)


# OK: `optimizer is not None` and `optimizer is None` test one flag: the
# branch that steps the optimizer is the branch that reset it; without one,
# the parameters are updated and reset by hand.
def optional_optimizer(net, loader, params=None, lr=0.1, optimizer=None):
    for x, y in loader:
        loss = nn.functional.cross_entropy(net(x), y)
        if optimizer is not None:
            optimizer.zero_grad()
        elif params is not None and params[0].grad is not None:
            for param in params:
                param.grad.data.zero_()
        loss.backward()
        if optimizer is None:
            with torch.no_grad():
                for param in params:
                    param -= lr * param.grad
        else:
            # ok: TL201
            optimizer.step()


# OK: the reset runs when either flag is set, the step when the first is:
# every path that steps resets.
def either_flag_resets(args, loader):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        if args.train or args.finetune:
            optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        if args.train:
            loss.backward()
            # ok: TL201
            optimizer.step()
