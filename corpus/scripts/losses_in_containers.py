"""Losses kept in dicts, lists and tuples, as multi-task trainers keep them.

A step helper returns its losses in a dict; the loop sums them for the
backward and logs them. What is read back from a container (`out["loss"]`,
`for name, value in losses.items()`, a comprehension variable, a name
unpacked from a list) carries the graph its element carries; a dict of
`.item()` values, or a running total of detached tensors, does not.
"""
from collections import defaultdict

import torch
import torch.nn.functional as F
from torch import nn


class MultiTaskNet(nn.Module):
    def __init__(self, n_in=64, n_classes=5):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(n_in, 128), nn.ReLU())
        self.cls_head = nn.Linear(128, n_classes)
        self.reg_head = nn.Linear(128, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h).squeeze(1)


def compute_losses(model, batch):
    logits, value = model(batch["x"])
    return {
        "cls": F.cross_entropy(logits, batch["label"]),
        "reg": F.mse_loss(value, batch["target"]),
    }


def training_step(model, batch, optimizer):
    losses = compute_losses(model, batch)
    total = sum(losses.values())
    optimizer.zero_grad()
    total.backward()
    optimizer.step()
    return {"loss": total, **losses}


def train_epoch(model, loader, optimizer):
    running = defaultdict(float)
    history = []
    last = {}
    for batch in loader:
        out = training_step(model, batch, optimizer)
        for name, value in out.items():
            # expect: TL101
            running[name] += value
        # expect: TL101
        history.append(out["loss"])
        # ok: TL101
        last["loss"] = out["loss"]
    return running, history


def train_epoch_ok(model, loader, optimizer):
    running = defaultdict(float)
    loss_accum = torch.zeros(())
    logs = []
    for step, batch in enumerate(loader):
        out = training_step(model, batch, optimizer)
        for name, value in out.items():
            # ok: TL101
            running[name] += value.item()
        # ok: TL101
        loss_accum += out["loss"].detach()
        # ok: TL101
        logs.append({name: value.item() for name, value in out.items()})
    return running, loss_accum.item() / max(step, 1), logs


def train_parts(model, loader, optimizer):
    cls_total = 0.0
    values = []
    for batch in loader:
        parts = [compute_losses(model, batch)[k] for k in ("cls", "reg")]
        cls_loss, reg_loss = parts
        loss = cls_loss + reg_loss
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # expect: TL101
        cls_total += cls_loss
        # ok: TL101
        values.extend([p.item() for p in parts])
    return cls_total, values


def reinforce_episode(policy, env, optimizer):
    log_probs = []
    rewards = []
    obs, done = env.reset(), False
    while not done:
        dist = torch.distributions.Categorical(logits=policy(obs))
        action = dist.sample()
        # ok: TL101
        log_probs.append(dist.log_prob(action))
        obs, reward, done = env.step(action.item())
        rewards.append(reward)
    returns = torch.tensor(rewards).flip(0).cumsum(0).flip(0)
    loss = -(torch.stack(log_probs) * returns).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()


def main(loader, env):
    model = MultiTaskNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(5):
        train_epoch(model, loader, optimizer)
        train_epoch_ok(model, loader, optimizer)
        train_parts(model, loader, optimizer)
    policy = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
    reinforce_episode(policy, env, torch.optim.Adam(policy.parameters()))
