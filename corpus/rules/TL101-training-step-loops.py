# TL101 is about training step loops: a loop whose iteration runs a backward
# or an optimizer step. The forms below decide whether a store is kept
# across such steps (TL101), or only across the iterations of some other
# loop (TL106, opt-in), or not kept at all.
import numpy as np
import torch
from monai.metrics import CumulativeAverage
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


# Flagged: a per-term loop inside the step loop stores each term into a
# history made before training: the inner loop is not the step loop, but
# the history outlives every training step.
def per_term_history(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    history = {"ce": [], "l2": []}
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        terms = {"ce": F.cross_entropy(out, y), "l2": out.pow(2).mean()}
        loss = terms["ce"] + 0.01 * terms["l2"]
        loss.backward()
        opt.step()
        for name in terms:
            # expect: TL101
            history[name].append(terms[name])
    return history


# Flagged: `losses[i] = loss` into a tensor made before the loop keeps
# every step's graph in the tensor's history.
def per_step_slots(loader, steps):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = torch.zeros(steps)
    for i, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # expect: TL101
        losses[i] = loss
    return losses


# Flagged: the same slot write into a list made before the loop.
def per_step_list_slots(loader, steps):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = [None] * steps
    for i, (x, y) in enumerate(loader):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # expect: TL101
        losses[i] = loss
    return losses


# Flagged: a step loop that only calls the optimizer through a local helper
# is still a training step loop.
def _update(model, opt, x, y):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()


def step_through_helper(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    outputs = []
    for x, y in loader:
        _update(model, opt, x, y)
        # expect: TL101
        outputs.append(model(x))
    return outputs


# OK: a list made anew in every training step and filled by an inner loop
# lives for one step; the inner loop is no training loop of its own (what
# it keeps is TL106's, opt-in).
def per_step_chunks(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        chunk_losses = []
        for xc, yc in zip(x.chunk(2), y.chunk(2)):
            # ok: TL101
            chunk_losses.append(F.cross_entropy(model(xc), yc))
        loss = torch.stack(chunk_losses).mean()
        loss.backward()
        opt.step()


# OK: a value kept on one guarded iteration only (the first batch's output
# kept for a later plot) holds one graph, not one per step.
def keep_first_batch(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    first = None
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        if step == 0:
            # ok: TL101
            first = out
    return first


# OK: what is kept is not a tensor: numpy arrays made from detached values,
# Python numbers.
def keep_numpy_values(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    preds = []
    total = 0.0
    for x, y in loader:
        opt.zero_grad()
        out = model(x)
        loss = F.cross_entropy(out, y)
        loss.backward()
        opt.step()
        # ok: TL101
        preds.append(out.detach().cpu().numpy())
        # ok: TL101
        total += loss.item()
    return np.concatenate(preds), total


# OK: the losses of one optimizer closure are all backpropagated in the step
# that calls it (L-BFGS evaluates the closure several times per step).
def lbfgs_closure_losses(loader):
    model = Net()
    opt = torch.optim.LBFGS(model.parameters())
    for x, y in loader:
        evaluated = []

        def closure():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            evaluated.append(loss)
            loss.backward()
            return loss

        opt.step(closure)
        print(len(evaluated))


# Flagged: an RL rollout (forwards only) inside a training loop: the values
# of one rollout are backpropagated in its update (no leak), but a log made
# before training keeps every rollout's values, graphs included.
def rollouts_logged(env, policy, updates):
    opt = torch.optim.Adam(policy.parameters())
    seen = []
    for _ in range(updates):
        obs = env.reset()
        step_values = []
        for _ in range(16):
            v = policy(obs)
            # ok: TL101
            step_values.append(v)
            # expect: TL101
            seen.append(v)
            obs = env.step(v)
        loss = torch.stack(step_values).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return seen


# Flagged: `optimizer.step(closure)` hands back what the closure returned,
# the loss with its graph; keeping it keeps every step's graph.
def keep_closure_loss(loader):
    model = Net()
    opt = torch.optim.LBFGS(model.parameters())
    history = []
    for x, y in loader:
        def closure():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            return loss

        loss = opt.step(closure)
        # expect: TL101
        history.append(loss)
    return history


# OK: the same closure loss kept as a number.
def keep_closure_loss_value(loader):
    model = Net()
    opt = torch.optim.LBFGS(model.parameters())
    history = []
    for x, y in loader:
        def closure():
            opt.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            return loss

        loss = opt.step(closure)
        # ok: TL101
        history.append(loss.item())
    return history


# OK: MONAI's CumulativeAverage detaches what it is handed; the same loss
# appended to a plain list keeps its graph.
def monai_running_average(model, loader):
    opt = torch.optim.Adam(model.parameters())
    avg = CumulativeAverage()
    raw = []
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # ok: TL101
        avg.append(loss)
        # expect: TL101
        raw.append(loss)
    return avg.aggregate(), raw


# OK: a closure that backpropagates twice and keeps both losses in a list of
# its own: all of it happens within one optimizer step.
def closure_with_two_backwards(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        def closure():
            opt.zero_grad()
            losses = []
            for i in range(2):
                loss = F.cross_entropy(model(x), y)
                # ok: TL101
                losses.append(loss)
                loss.backward(retain_graph=i == 0)
            return losses[-1]

        opt.step(closure)


# OK: outputs kept on the first step only, for a later comparison; kept
# every tenth step, they still grow with training.
def keep_first_step_outputs(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    first_outputs, snapshots = [], []
    for step, (x, y) in enumerate(loader):
        opt.zero_grad()
        out = model(x)
        F.cross_entropy(out, y).backward()
        opt.step()
        if step == 0:
            # ok: TL101
            first_outputs.append(out)
        if step % 10 == 0:
            # expect: TL101
            snapshots.append(out)
    return first_outputs, snapshots


# OK: gradient accumulation over a group of micro-batches: the group's
# outputs are listed anew for every optimizer step. A list made before the
# training loop keeps every group's outputs.
def accumulate_groups(model, groups):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    all_outputs = []
    for group in groups:
        opt.zero_grad()
        group_outputs = []
        for x, y in group:
            out = model(x)
            # ok: TL101
            group_outputs.append(out)
            # expect: TL101
            all_outputs.append(out)
            (F.cross_entropy(out, y) / len(group)).backward()
        opt.step()
    return all_outputs


def _train_step(model, opt, x, y):
    if x.numel() == 0:
        return None
    opt.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    return loss, x.size(0)


# OK: the sample count a step helper returns beside its loss is a number;
# the loss it returns is a graph tensor.
def count_samples(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    seen, kept = 0, []
    for x, y in loader:
        result = _train_step(model, opt, x, y)
        if result is None:
            continue
        loss, batch_size = result
        # ok: TL101
        seen += batch_size * 2
        # expect: TL101
        kept.append(loss)
    return seen, kept


# OK: a model that computes its own loss returns it first and its logged
# statistics after it; the code backpropagates that loss itself. A second
# output of a forward whose first output only feeds the loss (a recurrent
# state) carries the graph.
def model_returns_loss_and_logs(model, loader):
    rnn = nn.GRU(8, 8)
    opt = torch.optim.SGD(list(model.parameters()) + list(rnn.parameters()), lr=0.1)
    accuracy, states = 0.0, []
    for x, y in loader:
        loss, logs = model(x)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # ok: TL101
        accuracy += logs["accuracy"]
        out, hidden = rnn(x)
        F.cross_entropy(out, y).backward()
        opt.step()
        # expect: TL101
        states.append(hidden)
    return accuracy, states


class RegularizedModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 1)

    def forward(self, x):
        return self.fc(x)

    def _regularization(self):
        return 0.0

    # Flagged: adding a number (a helper that returns 0.0) to the loss
    # leaves it a graph tensor.
    def fit(self, batches, epochs):
        opt = torch.optim.SGD(self.parameters(), lr=0.1)
        for _ in range(epochs):
            running = 0.0
            for x in batches:
                opt.zero_grad()
                loss = -torch.mean(self(x))
                loss += self._regularization()
                loss.backward()
                opt.step()
                # expect: TL101
                running += loss
            print(running / len(batches))


# OK: per-step statistics written into a preallocated tensor under no_grad:
# the store copies the loss's value into the tensor and records nothing (a
# PPO trainer's stats tables, a distributed example's running totals).
def stats_table_without_grad(model, loader, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_stats = torch.zeros(steps)
    totals = torch.zeros(2)
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            # ok: TL101
            loss_stats[i] = loss
            # ok: TL101
            totals[0] += loss * x.size(0)
    return loss_stats, totals


# Flagged: the same table written with gradients on records each copy in
# the graph, and the table keeps every step's graph; a list keeps the
# tensor itself, under no_grad or not.
def stats_table_with_grad(model, loader, steps):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    loss_stats = torch.zeros(steps)
    kept = [None] * steps
    for i, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL101
        loss_stats[i] = loss
        with torch.no_grad():
            # expect: TL101
            kept[i] = loss
    return loss_stats, kept
