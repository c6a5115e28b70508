"""TL302 loop-invariant-transfer: fixtures.

An `expect` annotation sits before a `.to(device)` / `.cuda()` on every
step of a step loop, applied to something the loop never changes: a model,
a criterion, or a tensor bound before the loop (also through `self.`
attributes and helpers called from the loop). An `ok` annotation sits
before moves of values that do change per iteration (the batch, a name
re-bound in the loop, a buffer refilled in place, a comprehension
variable), moves done once, moves to bring a module back after `.cpu()`,
and dtype casts.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

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


# Flagged: the model is moved in the batch loop.
def model_moved_every_step(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        # expect: TL302
        model.to(device)
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a criterion module moved in the batch loop.
def criterion_moved_every_step(model, loader, opt):
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL302
        loss = criterion.cuda()(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: class weights built before the loop are copied again every step.
def class_weights_copied_every_step(model, loader, opt, counts):
    weights = torch.tensor(counts, dtype=torch.float32)
    weights = 1.0 / weights
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL302
        loss = F.cross_entropy(model(x), y, weight=weights.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a `self.` model bound in __init__, moved in the training method's loop.
class Trainer:
    def __init__(self):
        self.model = Net()
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=1e-3)

    def fit(self, loader):
        for x, y in loader:
            # expect: TL302
            self.model.cuda()
            loss = F.cross_entropy(self.model(x.cuda()), y.cuda())
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


# Flagged: `model = model.to(device)` re-binds the same module; still done every step.
def rebound_to_itself(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        # expect: TL302
        model = model.to(device)
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


def compute_loss(model, x, y, prior):
    # expect: TL302
    return F.cross_entropy(model(x), y) + (model.fc.weight.sum() * prior.to(device)).sum()


# Flagged: the prior is passed to a helper called on every step; the helper moves it each time.
def through_helper(loader, opt):
    model = Net().to(device)
    prior = torch.zeros(1)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = compute_loss(model, x, y, prior)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: an evaluation loop moves the model per batch.
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    for x, _ in loader:
        # expect: TL302
        model.to(device)
        model(x.to(device))


# Flagged: a parameter annotated as a tensor is known to be one; it never changes in the loop.
def annotated_tensor(model, loader, opt, mean: torch.Tensor):
    for x, y in loader:
        # expect: TL302
        x = (x - mean.to(device)).to(device)
        loss = F.cross_entropy(model(x), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a module-level script loop.
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
for xb, yb in []:
    # expect: TL302
    net.to(device)
    out = net(xb.to(device))
    batch_loss = F.cross_entropy(out, yb.to(device))
    optimizer.zero_grad()
    batch_loss.backward()
    optimizer.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the batch changes every iteration; moving it is the point.
def batch_is_moved(model, loader, opt):
    for x, y in loader:
        # ok: TL302
        x = x.to(device)
        # ok: TL302
        y = y.cuda()
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: the tensor is re-bound inside the loop before it is moved.
def rebound_in_loop(model, loader, opt):
    scale = torch.ones(1)
    for x, y in loader:
        # expect: TL307
        scale = torch.rand(1)
        # ok: TL302
        loss = F.cross_entropy(model(x.to(device) * scale.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a host staging buffer refilled in place each step must be copied each step.
def staging_buffer(model, batches, opt):
    staging = torch.empty(64, 32).pin_memory()
    for arr, y in batches:
        staging.copy_(torch.from_numpy(arr))
        # ok: TL302
        x = staging.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: the model goes to the CPU to be saved every step, so it has to come back.
def model_round_trip_for_saving(loader, save):
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        model.cpu()
        save(model.state_dict())
        # ok: TL302
        model.to(device)


# OK: moved once before the loop.
def moved_before_loop(loader):
    # ok: TL302
    model = Net().to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a loop over several models moves each one once.
def several_models(models, loader):
    for name, model in models.items():
        # ok: TL302
        model.to(device)
        model.eval()
        with torch.no_grad():
            for x, _ in loader:
                model(x.to(device))


# OK: the comprehension variable differs per element.
def comprehension_items(model, loader, opt):
    for batch in loader:
        # ok: TL302
        x, y = [t.to(device) for t in batch]
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: `.to(torch.float16)` is a dtype cast, not a transfer.
def dtype_cast(model, loader, opt):
    template = torch.ones(32)
    for x, y in loader:
        # ok: TL302
        t = template.to(torch.float16)
        loss = F.cross_entropy(model(x.to(device)) * t.sum().item(), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: an epoch loop that moves the model once per epoch is not the step loop.
def per_epoch_move(model, loader, opt, epochs):
    for epoch in range(epochs):
        # ok: TL302
        model.to(device)
        for x, y in loader:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()


# OK: an attribute re-assigned in another method (a buffer swapped between steps) may change.
class Swapping:
    def __init__(self):
        self.model = Net().to(device)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.bias = torch.zeros(10)

    def refresh(self):
        self.bias = torch.randn(10)

    def fit(self, loader):
        for x, y in loader:
            self.refresh()
            # ok: TL302
            logits = self.model(x.to(device)) + self.bias.to(device)
            loss = F.cross_entropy(logits, y.to(device))
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()


# OK: offloading. A large frozen encoder is brought to the GPU for its part of
# the step and sent back to the CPU to make room: the two moves undo each
# other, so each iteration has to repeat them.
def train_with_offloaded_encoder(model, loader, optimizer, offload=True):
    encoder = Net().eval()
    for tokens, target in loader:
        # ok: TL302
        encoder = encoder.to(device)
        with torch.no_grad():
            features = encoder(tokens.to(device))
        if offload:
            encoder = encoder.to("cpu")
        optimizer.zero_grad()
        nn.functional.mse_loss(model(features), target.to(device)).backward()
        optimizer.step()


# OK: a check that runs the model on the CPU and puts it back where it was.
@torch.no_grad()
def compare_on_cpu(model, batch):
    home = next(model.parameters()).device
    model.cpu()
    cpu_out = model(batch.cpu())
    # ok: TL302
    model.to(home)
    return cpu_out


def evaluate_with_cpu_check(model, loader):
    for batch in loader:
        with torch.no_grad():
            model(batch.to(device))
        compare_on_cpu(model, batch)


# OK: a per-parameter conversion in a loop over parameters: the destination
# is each parameter's own device.
def apply_weight_scale(model, scale):
    for p in model.parameters():
        # ok: TL302
        p.data.mul_(scale.to(p.device))


# The moved module never leaves the device inside the loop: moved again for nothing.
def train_moving_each_step(model, loader, optimizer):
    encoder = Net().eval()
    for tokens, target in loader:
        # expect: TL302
        encoder = encoder.to(device)
        with torch.no_grad():
            features = encoder(tokens.to(device))
        optimizer.zero_grad()
        nn.functional.mse_loss(model(features), target.to(device)).backward()
        optimizer.step()


# OK (issue 22, ecosystem): the tensor was made on the device it is sent
# to, named the same way; `.to()` returns it unchanged, no copy.
class Postprocessor:
    def __init__(self, stop_ids, model, device):
        self._device = device
        self.model = model
        self.stop_tokens = torch.tensor(stop_ids, device=self._device)

    def run(self, loader, optimizer):
        for tokens, target in loader:
            out = self.model(tokens.to(self._device))
            # ok: TL302
            keep = (out.argmax(-1)[..., None] != self.stop_tokens.to(self._device)).all(-1)
            optimizer.zero_grad()
            F.mse_loss(out[keep], target.to(self._device)[keep]).backward()
            optimizer.step()


# The same tensor made on the host: copied to the device every step.
class HostPostprocessor:
    def __init__(self, stop_ids, model, device):
        self._device = device
        self.model = model
        self.stop_tokens = torch.tensor(stop_ids)

    def run(self, loader, optimizer):
        for tokens, target in loader:
            out = self.model(tokens.to(self._device))
            # expect: TL302
            keep = (out.argmax(-1)[..., None] != self.stop_tokens.to(self._device)).all(-1)
            optimizer.zero_grad()
            F.mse_loss(out[keep], target.to(self._device)[keep]).backward()
            optimizer.step()


# OK (issue 22, ecosystem): a helper aligns the target with the device its
# model's output is on; the callers made the target on that device, so the
# move returns it unchanged (whether it copies cannot be told in general).
def step_model(model, batch, target):
    model.train()
    output = model(batch)
    # ok: TL302
    loss = F.mse_loss(output, target.to(output.device))
    loss.backward()


def train_aligned(model, batch, optimizer, steps):
    model = model.to(device)
    batch = batch.to(device)
    target = torch.randn(batch.shape[0], 4).to(device)
    for _ in range(steps):
        optimizer.zero_grad()
        step_model(model, batch, target)
        optimizer.step()


# The target is made on the host before the loop: copied every step.
def step_host_target(model, batch, target):
    output = model(batch)
    # expect: TL302
    loss = F.mse_loss(output, target.to(output.device))
    loss.backward()


def train_host_target(model, loader, optimizer):
    target = torch.zeros(8, 4)
    for batch in loader:
        optimizer.zero_grad()
        step_host_target(model, batch.to(device), target)
        optimizer.step()


# A module moved to the device before the loop and again on every step: a
# module's `.to()` walks all its parameters each time, even when they are
# already there (the no-copy case above is for tensors only).
def train_vae_moved_twice(model, loader, optimizer):
    vae = Net().to(device)
    for images, target in loader:
        # expect: TL302
        vae = vae.to(device)
        with torch.no_grad():
            latents = vae(images.to(device))
        optimizer.zero_grad()
        F.mse_loss(model(latents), target.to(device)).backward()
        optimizer.step()
