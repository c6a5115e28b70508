"""TL303 host-round-trip-in-loop: fixtures.

An `expect` annotation sits before the call that sends data back to the
device (`.to(device)`, `.cuda()`, `torch.tensor(..., device=...)`) when, in
the same step-loop iteration, that data came to the host from a device
tensor (`.cpu()`, `.tolist()`, `.item()`, `.numpy()` after `.cpu()`),
directly or through numpy, torch functions, builtins, arithmetic, a local
helper that copies to the host, a list filled with host copies earlier in
the step, or a comprehension. An `ok`
annotation sits before transfers of data that really comes from the host:
a batch, a value an environment or a dataset produced from host data, host
copies made for logging that never go back, copies made outside the loop, a
size read from the device that only shapes a new tensor, a metric list
turned into a tensor after the loop.
"""
import numpy as np
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


# Flagged: predictions go through numpy and come back as pseudo-labels.
def pseudo_labels_through_numpy(model, loader, opt):
    for x, _ in loader:
        x = x.to(device)
        logits = model(x)
        # expect: TL304
        preds = logits.argmax(1).cpu().numpy()
        # expect: TL303
        target = torch.from_numpy(preds).to(device)
        loss = F.cross_entropy(logits, target)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: `.tolist()` then `torch.tensor(..., device=...)`.
def tolist_then_tensor(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        ranks = out.argsort(dim=1).tolist()
        # expect: TL303
        r = torch.tensor(ranks, device=device)
        loss = F.cross_entropy(out, y) + 0.0 * r.float().mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: numpy arithmetic on the host copy, then `.cuda()`.
def numpy_math_in_between(model, loader, opt):
    for x, y in loader:
        x, y = x.cuda(), y.cuda()
        out = model(x)
        # expect: TL304
        probs = F.softmax(out, dim=1).detach().cpu().numpy()
        weights = np.clip(1.0 - probs.max(axis=1), 0.1, 1.0)
        # expect: TL303
        w = torch.tensor(weights).cuda()
        loss = (F.cross_entropy(out, y, reduction="none") * w).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a straight `.cpu()` and back.
def cpu_then_back(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        h = model(x)
        # expect: TL304
        h_host = h.detach().cpu()
        # expect: TL303
        h_back = h_host.to(device)
        loss = F.cross_entropy(h, y) + h_back.sum() * 0.0
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: `torch.as_tensor` of a list comprehension over the host copy.
def comprehension_in_between(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        scores = out.max(dim=1).values.tolist()
        clipped = [min(s, 5.0) for s in scores]
        # expect: TL303
        c = torch.as_tensor(clipped, device="cuda")
        loss = F.cross_entropy(out, y) + c.mean() * 0.0
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: an evaluation loop that decodes on the host and re-uploads the tokens (a forward per step).
@torch.no_grad()
def greedy_decode(model, start, steps):
    model.eval()
    tokens = start.to(device)
    for _ in range(steps):
        logits = model(tokens)
        nxt = logits[:, -1].argmax(-1).cpu()
        # expect: TL303
        tokens = torch.cat([tokens, nxt.unsqueeze(1).to(device)], dim=1)
    return tokens


# Flagged: the host copy goes through a dtype change on the way back.
def astype_on_the_way(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        mask = (out.detach().cpu().numpy() > 0).astype(np.float32)
        # expect: TL303
        m = torch.from_numpy(mask).to(device, non_blocking=True)
        loss = F.cross_entropy(out * m, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a loss moved to the host and back (through a float() sum).
def scalar_through_python(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        norms = out.norm(dim=1).cpu().tolist()
        total = sum(norms)
        # expect: TL303
        penalty = torch.tensor([total], device=device)
        loss = F.cross_entropy(out, y) + 1e-6 * penalty.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a local helper does `.detach().cpu().numpy()`; its result comes back.
def to_numpy(t):
    return t.detach().cpu().numpy()


def through_local_helper(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL303
        conf = torch.from_numpy(to_numpy(out).max(axis=1)).to(device)
        loss = F.cross_entropy(out, y) + conf.mean() * 0.0
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: host copies collected in a list, stacked by numpy and sent back in the same step.
def list_building_then_stack(model, loader, opt, shifts):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        feats = model(x)
        scores = []
        for k in range(shifts):
            # expect: TL304
            scores.append(feats.roll(k, dims=1).detach().cpu().numpy())
        stacked = np.stack(scores).mean(axis=0)
        # expect: TL303
        target = torch.tensor(stacked, dtype=torch.float32, device=device)
        loss = F.mse_loss(feats, target)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a comprehension copies each row to the host; np.concatenate; back.
def comprehension_of_copies(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        rows = [r.detach().cpu().numpy() for r in out]
        joined = np.concatenate(rows)
        # expect: TL303
        back = torch.as_tensor(joined).cuda()
        loss = F.cross_entropy(out, y) + back.sum() * 0.0
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: `.detach().cpu().numpy()` then `torch.tensor(arr, device=device)`.
def chain_then_factory_device(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        arr = out.detach().cpu().numpy()
        # expect: TL303
        smooth = torch.tensor(np.asarray(arr) * 0.9 + 0.01, device=device)
        loss = F.mse_loss(out, smooth)
        opt.zero_grad()
        loss.backward()
        opt.step()


# Flagged: a scalar read with `.item()` is wrapped in a tensor on the device again.
def item_back_to_device(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = F.cross_entropy(out, y)
        # expect: TL304
        scale = 1.0 / max(loss.item(), 1e-3)
        # expect: TL303
        s = torch.tensor([scale], device=device)
        opt.zero_grad()
        (loss * s).sum().backward()
        opt.step()


# Flagged: a trainer's helper method copies to the host; the result comes back.
class HostMetricTrainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def host(self, t):
        # expect: TL304
        return t.detach().cpu().numpy()

    def fit(self, loader):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            out = self.model(x)
            loss = F.cross_entropy(out, y)
            # expect: TL303
            w = torch.from_numpy(np.exp(-self.host(out))).to(device)
            self.opt.zero_grad()
            (loss + w.mean() * 0.0).backward()
            self.opt.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the batch comes from the host; moving it is not a round trip.
def batch_from_host(model, loader, opt):
    for x, y in loader:
        # ok: TL303
        x = x.to(device)
        # ok: TL303
        y = torch.as_tensor(y, device=device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: an environment consumes the action on the host and returns a new observation.
@torch.no_grad()
def rollout(policy, env, steps):
    obs = torch.as_tensor(env.reset(), dtype=torch.float32, device=device)
    for _ in range(steps):
        action = policy(obs).argmax().cpu().numpy()
        next_obs, reward, done, _ = env.step(action)
        # ok: TL303
        obs = torch.as_tensor(next_obs, dtype=torch.float32, device=device)


# OK: host copies for metrics only; nothing goes back.
def metrics_on_host(model, loader, opt, history):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        history.append(out.argmax(1).cpu().numpy())


# OK: the host copy was made before the loop (TL302's business, not a per-step round trip).
def host_copy_before_loop(model, loader, opt, table):
    table_host = table.cpu().numpy()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL303
        t = torch.from_numpy(table_host).to(device)
        loss = F.cross_entropy(model(x) + t.sum() * 0.0, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: the host data came from a helper the file shows nothing about (augmentation on the host).
def host_augmentation(model, loader, opt, augment):
    for x, y in loader:
        x_host = x.cpu().numpy()
        x_aug = augment(x_host)
        # ok: TL303
        x = torch.from_numpy(x_aug).to(device)
        loss = F.cross_entropy(model(x), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: `.cpu()` of a batch that was never on the device is no device-to-host copy.
def host_batch_cpu(model, loader, opt):
    for x, y in loader:
        x = x.cpu().float()
        # ok: TL303
        x = x.to(device)
        loss = F.cross_entropy(model(x), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a copy back to the host that stays there (moved to the CPU, not to the device).
def stays_on_host(model, loader, opt, store):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        feats = out.detach().cpu()
        # ok: TL303
        store.append(feats.to("cpu", dtype=torch.float16))
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: last iteration's host copy feeds this iteration only after a fresh batch replaces it.
def value_replaced_before_use(model, loader, opt):
    prev = None
    for x, y in loader:
        x = x.to(device)
        prev = torch.from_numpy(np.zeros(4, dtype=np.float32))
        # ok: TL303
        p = prev.to(device)
        out = model(x)
        loss = F.cross_entropy(out, y.to(device)) + p.sum()
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: a round trip once per epoch (in the epoch loop, outside the step loop).
def per_epoch_round_trip(model, loader, opt, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
        w = model.fc.weight.detach().cpu().numpy()
        # ok: TL303
        model.fc.weight.data.copy_(torch.from_numpy(np.sign(w)).to(device))


# OK: host data built once before the loop from a device value, and a numpy array made on the host.
def host_data_before_loop(model, loader, opt, class_counts):
    prior = np.log(class_counts.cpu().numpy() + 1.0)
    noise = np.random.randn(10).astype(np.float32)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL303
        p = torch.from_numpy(prior).to(device)
        # ok: TL303
        n = torch.tensor(noise * 0.1, device=device)
        loss = F.cross_entropy(model(x) + p + n, y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: `.item()` only for logging; the host value never goes back.
def item_for_logging(model, loader, opt, log):
    running = []
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        running.append(loss.item())
        log({"loss": float(np.mean(running[-10:])), "step": step})


# OK: a metric list turned into a tensor after the loop, once.
def metric_list_after_loop(model, loader, opt):
    preds = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        preds.append(to_numpy(out.argmax(1)))
    # ok: TL303
    return torch.from_numpy(np.concatenate(preds)).to(device)


# OK: a size read from the device sizes a new tensor; no data comes back.
def size_from_device(model, loader, opt):
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        # expect: TL304
        k = int((y > 0).sum().item())
        # expect: TL301
        # ok: TL303
        idx = torch.arange(max(k, 1)).to(device)
        loss = F.cross_entropy(out, y) + out[idx % out.shape[0]].sum() * 0.0
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: the local helper is given a host batch: its copy is no device-to-host copy.
def helper_on_host_batch(model, loader, opt):
    for x, y in loader:
        xs = to_numpy(x)
        # ok: TL303
        x = torch.from_numpy(xs / 255.0).float().to(device)
        loss = F.cross_entropy(model(x), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
