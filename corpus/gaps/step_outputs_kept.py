"""Step outputs kept across iterations with their graphs (TL101).

`module.training_step(batch)` is a method torchlint cannot read, but
`output["loss"].backward()` shows that `output` holds a graph tensor, so
appending the whole output to a list kept for the epoch keeps every step's
graph. Likewise the losses an unknown `calculate_loss` returns flow into
the backpropagated `loss` (`loss = sum(losses)`), so they carry graphs, and
a dict literal holding the loss does too. The twins: a count that divides
the loss, the detached or `.item()` forms (also the step's output whose
loss element is replaced by its detached value before the append, the fix
packnet-sfm made), an output whose loss element is
only logged, and a list that is backpropagated at the end of the episode.
"""
import torch
import torch.nn.functional as F


def train_epoch(module, loader, optimizer):
    outputs = []
    logged = []
    for i, batch in enumerate(loader):
        optimizer.zero_grad()
        output = module.training_step(batch, i)
        output["loss"].backward()
        optimizer.step()
        # expect: TL101
        outputs.append(output)
        # ok: TL101
        logged.append({"loss": output["loss"].item()})
    return module.training_epoch_end(outputs), logged


def train_epoch_detached(module, loader, optimizer):
    outputs = []
    for i, batch in enumerate(loader):
        optimizer.zero_grad()
        output = module.training_step(batch, i)
        output["loss"].backward()
        optimizer.step()
        output["loss"] = output["loss"].detach()
        # ok: TL101
        outputs.append(output)
    return module.training_epoch_end(outputs)


def validation_outputs(module, loader):
    outputs = []
    for i, batch in enumerate(loader):
        output = module.validation_step(batch, i)
        print(output["loss"].item())
        # ok: TL101
        outputs.append(output)
    return outputs


def train_losses(model, loader, optimizer):
    losses_list, counts, kept = [], [], []
    for batch in loader:
        optimizer.zero_grad()
        losses = model.calculate_loss(batch)
        n = batch.size(0)
        loss = sum(losses) if isinstance(losses, tuple) else losses
        loss = loss / n
        loss.backward()
        optimizer.step()
        # expect: TL101
        losses_list.append(losses)
        # ok: TL101
        counts.append(n)
        # ok: TL101
        kept.append(tuple(part.item() for part in losses))
    return losses_list, counts, kept


def train_dicts(model, loader, optimizer):
    history = []
    for x, y in loader:
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        history.append({"loss": loss, "n": len(y)})
        # ok: TL101
        history.append({"loss": loss.detach(), "n": len(y)})
    return history


def reinforce(policy, env, optimizer):
    log_probs = []
    state = env.reset()
    for t in range(1000):
        dist = policy(state)
        action = dist.sample()
        # ok: TL101
        log_probs.append((dist.log_prob(action), t))
        state, reward, done = env.step(action)
        if done:
            break
    loss = -torch.stack([lp for lp, _ in log_probs]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
