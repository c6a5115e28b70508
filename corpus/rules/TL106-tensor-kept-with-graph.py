# TL106: a graph tensor kept across the iterations of a loop that trains
# nothing (evaluation, sampling, decoding) while gradients are on. Opt-in.
import torch
import torch.nn.functional as F
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 2)

    def forward(self, x):
        return self.fc(x)


# Flagged: a prediction loop with gradients on keeps every batch's
# activations in the list until the loop ends.
def predict(loader):
    model = Net()
    preds = []
    for x, _ in loader:
        # expect: TL106
        preds.append(model(x))
    return torch.cat(preds)


# Flagged: a validation loss summed over the loader with gradients on (a
# sum the function returns may be a loss its caller backpropagates: here it
# is only printed).
def validation_loss(loader):
    model = Net()
    total = 0
    for x, y in loader:
        # expect: TL106
        total += F.cross_entropy(model(x), y)
    print("validation loss", float(total) / len(loader))


# Flagged: the same with the model handed in as a parameter.
def validation_loss_of(model, loader):
    total = 0
    for x, y in loader:
        # expect: TL106
        total += F.cross_entropy(model(x), y)
    print("validation loss", float(total) / len(loader))


# Flagged: autoregressive decoding that keeps each step's logits.
def decode(model, start, steps):
    tokens, logits_seen = start, []
    for _ in range(steps):
        logits = model(tokens)
        # expect: TL106
        logits_seen.append(logits)
        tokens = logits.argmax(-1)
    return tokens, logits_seen


# OK: the same prediction loop under no_grad, or detached.
@torch.no_grad()
def predict_no_grad(loader):
    model = Net()
    preds = []
    for x, _ in loader:
        # ok: TL106
        preds.append(model(x))
    return torch.cat(preds)


def predict_detached(loader):
    model = Net()
    preds = []
    for x, _ in loader:
        # ok: TL106
        preds.append(model(x).detach())
    return torch.cat(preds)


# OK: a training loop's store is TL101's, not TL106's.
def train(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # ok: TL106
        # expect: TL101
        losses.append(loss)
    return losses


# OK: a per-step list filled by an inner loop of the training step lives
# for one step.
def train_chunks(loader):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        outs = []
        for xc in x.chunk(4):
            # ok: TL106
            outs.append(model(xc))
        loss = F.cross_entropy(torch.cat(outs), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: tiles collected inside a model's method make its result.
class Tiled(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = Net()

    def forward(self, x):
        pieces = []
        for tile in x.split(4):
            # ok: TL106
            pieces.append(self.net(tile))
        return torch.cat(pieces)


# OK: REINFORCE keeps the episode's log-probabilities for its backward.
def episode(policy, env, opt):
    log_probs = []
    obs = env.reset()
    for _ in range(100):
        dist = torch.distributions.Categorical(logits=policy(obs))
        action = dist.sample()
        # ok: TL106
        log_probs.append(dist.log_prob(action))
        obs = env.step(action)
    opt.zero_grad()
    (-torch.stack(log_probs).sum()).backward()
    opt.step()


# Layers written by hand, no nn.Module: each object's `__call__` is its
# forward, a container object runs its layers in order, and the training
# code sets `requires_grad` on the list of their tensors. Calling the
# container runs its `__call__`.
class HandLinear:
    def __init__(self, n_in, n_out):
        self.w = torch.randn(n_in, n_out) / n_in ** 0.5
        self.b = torch.zeros(n_out)

    def __call__(self, x):
        return x @ self.w + self.b

    def parameters(self):
        return [self.w, self.b]


class HandStack:
    def __init__(self, layers):
        self.layers = layers

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        return x

    def parameters(self):
        return [p for layer in self.layers for p in layer.parameters()]


def hand_stack_outputs(xs):
    stack = HandStack([HandLinear(8, 32), HandLinear(32, 4)])
    for p in stack.parameters():
        p.requires_grad = True
    rows = torch.zeros(len(xs), 4)
    for i in range(len(xs)):
        # expect: TL106
        rows[i] = stack(xs[[i]])
    return rows


def hand_stack_outputs_no_grad(xs):
    stack = HandStack([HandLinear(8, 32), HandLinear(32, 4)])
    for p in stack.parameters():
        p.requires_grad = True
    rows = torch.zeros(len(xs), 4)
    with torch.no_grad():
        for i in range(len(xs)):
            # ok: TL106
            rows[i] = stack(xs[[i]])
    return rows


# An epoch loop around a training loop: the running sum links every step's
# graph, and keeping its average per epoch keeps them (TL106 at the epoch's
# store; TL101 at the sum). The average computed under no_grad is a new tensor
# with no history: keeping it keeps nothing.
def epoch_costs(model, opt, loader, epochs):
    kept, plain = [], []
    for _ in range(epochs):
        running = 0.0
        for x, y in loader:
            opt.zero_grad()
            cost = F.cross_entropy(model(x), y)
            cost.backward()
            opt.step()
            # expect: TL101
            running += cost
        # expect: TL106
        kept.append(running / len(loader))
        with torch.no_grad():
            avg = running / len(loader)
            # ok: TL106
            plain.append(avg)
    return kept, plain


# An epoch loop around a training loop: the running sum links every step's
# graph (TL101 at the sum). Its average computed under no_grad is a new tensor
# with no history: arithmetic in grad-disabled code records none, as a call
# there does, so keeping it keeps nothing.
def epoch_costs_tensor(model, opt, loader, epochs):
    plain = []
    for _ in range(epochs):
        running = torch.zeros(())
        for x, y in loader:
            opt.zero_grad()
            cost = F.cross_entropy(model(x), y)
            cost.backward()
            opt.step()
            # expect: TL101
            running += cost
        with torch.no_grad():
            # ok: TL106
            plain.append(running / len(loader))
    return plain
