"""TL101 loss-accumulated-with-graph: fixtures.

Each function is one case. An `expect` annotation marks a store that keeps a
tensor attached to the autograd graph alive across iterations (reported at the
storing expression); an `ok` annotation marks a store that looks similar but is
harmless: a number or a detached tensor, a value computed with gradients off, a
name overwritten every iteration, or a container whose contents are meant to
reach a backward. Every training loop here resets gradients and evaluates under
no_grad unless the case says otherwise.
"""
import torch
import torch as T
import torch.nn.functional as F
from torch import nn, optim
from torch.distributions import Categorical
from transformers import AutoModelForSequenceClassification

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
no_grad = torch.no_grad()


class Net(nn.Module):
    def __init__(self, in_features=784, num_classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(in_features, 256), nn.ReLU())
        self.head = nn.Linear(256, num_classes)

    def forward(self, x):
        return self.head(self.body(x))


# OK: inside a module's forward, per-exit outputs are collected with gradients on; they are meant to reach the loss.
class MultiExitNet(nn.Module):
    def __init__(self, widths=(784, 256, 256, 256), num_classes=10):
        super().__init__()
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(w_in, w_out), nn.ReLU()) for w_in, w_out in zip(widths[:-1], widths[1:])
        )
        self.exits = nn.ModuleList(nn.Linear(w, num_classes) for w in widths[1:])

    def forward(self, x):
        h = x.flatten(1)
        outs = []
        for block, exit_head in zip(self.blocks, self.exits):
            h = block(h)
            # ok: TL101
            outs.append(exit_head(h))
        return outs


class Policy(nn.Module):
    def __init__(self, obs_dim=4, n_actions=2):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 128), nn.ReLU(), nn.Linear(128, n_actions))

    def forward(self, obs):
        return F.softmax(self.net(obs), dim=-1)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the loss tensor itself goes into a list that lives for the whole loop, so every step's graph is kept.
def append_loss_tensor(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        losses.append(loss)
    return losses


# Flagged: `total_loss += loss` chains every step's graph into one ever-growing sum.
def plus_equals_loss(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    total_loss = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        total_loss += loss
    return total_loss / len(train_loader)


# Flagged: the spelled-out form `total = total + loss` keeps the graph just like `+=`.
def total_equals_total_plus_loss(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    total = 0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        total = total + loss
    print("epoch loss", total.item() / len(train_loader))


# Flagged: a list inside a history dict outlives the loop just like a plain list.
def history_dict_append(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    history = {"train_loss": [], "lr": []}
    for epoch in range(epochs):
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            # expect: TL101
            history["train_loss"].append(loss)
            history["lr"].append(optimizer.param_groups[0]["lr"])
    return history


# Flagged: a dict keyed by step keeps one graph per step (the key changes every iteration).
def subscript_store_per_step(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    step_losses = {}
    for step, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        step_losses[step] = loss
    return step_losses


# Flagged: a prediction loop run with gradients on stores model outputs, so every batch's activations stay alive.
def predict_without_no_grad(test_loader):
    model = Net().to(device)
    preds = []
    for x, _ in test_loader:
        x = x.to(device)
        # expect: TL106
        preds.append(model(x))
    return torch.cat(preds)


# Flagged: F.cross_entropy through `import torch.nn.functional as F` is a loss call like any criterion.
def functional_loss_accumulated(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    epoch_loss = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        epoch_loss += loss
    return epoch_loss


# Flagged: a criterion constructed and called inline, `nn.MSELoss()(pred, target)`, still returns a graph tensor.
def inline_criterion_accumulated(train_loader):
    model = Net(in_features=16, num_classes=1).to(device)
    optimizer = optim.SGD(model.parameters(), lr=0.01)
    running = 0.0
    for x, target in train_loader:
        x, target = x.to(device), target.to(device)
        optimizer.zero_grad()
        pred = model(x).squeeze(-1)
        loss = nn.MSELoss()(pred, target)
        loss.backward()
        optimizer.step()
        # expect: TL101
        running = running + loss
    return running


# Flagged: HF-style `outputs.loss` of a forward with gradients on is a graph tensor.
def hf_outputs_loss_accumulated(train_dataloader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model.train()
    total_loss = 0
    for batch in train_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)
        loss = outputs.loss
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        # expect: TL101
        total_loss += loss
    return total_loss


# Flagged: `.cpu()` alone copies the value but keeps grad_fn, so the graph is still referenced.
def cpu_alone_keeps_graph(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        # expect: TL304
        losses.append(loss.cpu())
    return losses


# Flagged: `.float()` is a differentiable cast, not a detach: the accumulated value still carries the graph.
def float_method_keeps_graph(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    total = torch.zeros((), device=device)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        total += loss.float()
    return total.item()


# Flagged: arithmetic on the loss (weighting by batch size) is still a graph tensor.
def weighted_sum_keeps_graph(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    running_loss = 0.0
    seen = 0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        running_loss += loss * x.size(0)
        seen += x.size(0)
    return running_loss / seen


# Flagged: model, optimizer and criterion are `self.` attributes bound in __init__; the history list is one too.
class Trainer:
    def __init__(self, lr=1e-3):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.loss_history = []

    def fit(self, train_loader):
        self.model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            # expect: TL101
            self.loss_history.append(loss)


# Flagged: model, optimizer and criterion arrive as ordinary parameters; the backward makes `loss` a graph tensor.
def train(model, loader, optimizer, criterion):
    model.train()
    epoch_losses = []
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        optimizer.zero_grad()
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        optimizer.step()
        # expect: TL101
        epoch_losses.append(loss)
    return epoch_losses


# Flagged: the list is created inside the epoch loop but before the step loop, so it outlives every step iteration.
def list_created_per_epoch(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        batch_losses = []
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            # expect: TL101
            batch_losses.append(loss)
        print(epoch, sum(l.item() for l in batch_losses) / len(batch_losses))


# Flagged: `import torch as T` resolves; T.nn.functional.cross_entropy is a loss call.
def torch_alias_T(train_loader):
    model = Net().to(device)
    optimizer = T.optim.SGD(model.parameters(), lr=0.05)
    total = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = T.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        total += loss
    return total


# Flagged: raw logits of a training forward are stored every step, keeping each step's graph.
def store_training_logits(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    train_logits = []
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        train_logits.append(logits)
    return torch.cat(train_logits)


# Flagged: with gradient accumulation the scaled loss is still a graph tensor when it is logged.
def accumulation_scaled_loss_logged(train_loader, accum_steps=4):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    micro_losses = []
    optimizer.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        # expect: TL101
        micro_losses.append(loss)
        if (i + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
    return micro_losses


# Flagged twice on one line: evaluation after model.eval() without no_grad (TL102) stores the outputs (TL101).
def eval_collects_outputs_with_grad(model, val_loader):
    model.eval()
    preds = []
    for x, _ in val_loader:
        x = x.to(device)
        # expect: TL106, TL102
        preds.append(model(x))
    return torch.cat(preds)


# Todo: the metric functions come out of a dict of callables, so nothing binds them as losses; their results
# are graph tensors (computed from the logits) stored per step, but a static analyzer cannot know fn is differentiable.
def dict_of_metric_callables(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    metric_fns = {"ce": nn.CrossEntropyLoss(), "margin": nn.MultiMarginLoss()}
    metric_log = {name: [] for name in metric_fns}
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        for name, fn in metric_fns.items():
            # expect: TL101
            metric_log[name].append(fn(logits, y))
    return metric_log


def _one_step(model, optimizer, criterion, x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


# Flagged: the graph tensor is returned by a local helper; the engine follows the helper's return value.
def returned_loss_accumulated(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    total = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL101
        total += _one_step(model, optimizer, criterion, x, y)
    return total


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: `.item()` turns the loss into a Python float; nothing of the graph is stored.
def accumulate_item(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    total_loss = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        # expect: TL304
        total_loss += loss.item()
    return total_loss / len(train_loader)


# OK: the recommended form: accumulate `loss.detach()` on the device and call .item() once per epoch.
def accumulate_detach_item_per_epoch(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        total = torch.zeros((), device=device)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
            # ok: TL101
            total += loss.detach()
        print(epoch, total.item() / len(train_loader))


# OK: per-sample losses leave as a Python list through `.tolist()`; the mean is what is backpropagated.
def extend_with_tolist(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    per_sample_criterion = nn.CrossEntropyLoss(reduction="none")
    sample_losses = []
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        per_sample = per_sample_criterion(model(x), y)
        loss = per_sample.mean()
        loss.backward()
        optimizer.step()
        # ok: TL101
        # expect: TL304
        sample_losses.extend(per_sample.tolist())
    return sample_losses


# OK: `float(loss)` is a Python number.
def append_float_of_loss(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    losses = []
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        # expect: TL304
        losses.append(float(loss))
    return losses


# OK: `.cpu().item()` ends in a number even though `.cpu()` alone would keep the graph.
def cpu_then_item(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    total = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        # expect: TL304
        total += loss.cpu().item()
    return total


# OK: `.data` has no autograd history (old style, but it does not keep the graph).
def accumulate_data_attribute(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    total = torch.zeros((), device=device)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        total += loss.data
    return total.item()


# OK: a plain name overwritten every iteration holds at most one step's graph; it is not accumulation.
def overwritten_every_iteration(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    last_loss = None
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        last_loss = loss
    print("final batch loss", last_loss.item())


# OK: validation loss summed inside `with torch.no_grad()` is not a graph tensor (and the eval forward is guarded).
def validation_sum_under_no_grad(model, val_loader, criterion):
    model.eval()
    val_loss = 0.0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL101, TL102
            val_loss += criterion(model(x), y)
    return val_loss.item() / len(val_loader)


# OK: the `@torch.no_grad()` decorator makes every output in the list graph-free.
@torch.no_grad()
def collect_outputs_decorated(model, test_loader):
    model.eval()
    outputs = []
    for x, _ in test_loader:
        x = x.to(device)
        # ok: TL101, TL102
        outputs.append(model(x))
    return torch.cat(outputs)


# OK: `torch.inference_mode()` around the loop: outputs are inference tensors without history.
def collect_logits_inference_mode(model, test_loader):
    model.eval()
    logits_all = []
    with torch.inference_mode():
        for x, _ in test_loader:
            x = x.to(device)
            # ok: TL101, TL102
            logits_all.append(model(x))
    return torch.cat(logits_all)


# OK: `outputs.loss` computed under no_grad stays graph-free when read after the block.
def hf_eval_loss_read_after_no_grad(eval_dataloader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)
    model.eval()
    eval_losses = []
    for batch in eval_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.no_grad():
            # ok: TL102
            outputs = model(**batch)
        # ok: TL101
        eval_losses.append(outputs.loss)
    return torch.stack(eval_losses).mean().item()


# OK: REINFORCE keeps the log-probabilities on purpose; the stacked list is backpropagated after the episode.
def reinforce_episode_log_probs(env, episodes, gamma=0.99):
    policy = Policy().to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(episodes):
        obs = env.reset()
        log_probs = []
        rewards = []
        done = False
        while not done:
            probs = policy(torch.as_tensor(obs, dtype=torch.float32, device=device))
            dist = Categorical(probs)
            action = dist.sample()
            # ok: TL101
            log_probs.append(dist.log_prob(action))
            obs, reward, done, _ = env.step(action.item())
            rewards.append(reward)
        returns = []
        running = 0.0
        for r in reversed(rewards):
            running = r + gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns, device=device)
        returns = (returns - returns.mean()) / (returns.std() + 1e-8)
        optimizer.zero_grad()
        policy_loss = -(torch.stack(log_probs) * returns).sum()
        policy_loss.backward()
        optimizer.step()


# OK: a REINFORCE variant that stacks the list and calls `.sum().backward()` directly.
def reinforce_stack_sum_backward(env, episodes):
    policy = Policy().to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=1e-2)
    for episode in range(episodes):
        obs = env.reset()
        terms = []
        done = False
        while not done:
            dist = Categorical(policy(torch.as_tensor(obs, dtype=torch.float32, device=device)))
            action = dist.sample()
            obs, reward, done, _ = env.step(action.item())
            # ok: TL101
            terms.append(-dist.log_prob(action) * reward)
        optimizer.zero_grad()
        torch.stack(terms).sum().backward()
        optimizer.step()


# OK: multi-task loss summed over heads; `loss` starts at 0 each step and the sum is what is backpropagated.
def multi_task_heads_sum(train_loader):
    backbone = Net(num_classes=256).to(device)
    heads = nn.ModuleList([nn.Linear(256, 10), nn.Linear(256, 5)]).to(device)
    criteria = [nn.CrossEntropyLoss(), nn.CrossEntropyLoss()]
    params = list(backbone.parameters()) + list(heads.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-3)
    for x, targets in train_loader:
        x = x.to(device)
        optimizer.zero_grad()
        feats = backbone(x)
        loss = 0
        for head, crit, y in zip(heads, criteria, targets):
            # ok: TL101
            loss += crit(head(feats), y.to(device))
        loss.backward()
        optimizer.step()


# OK: the list is created inside the iteration and its sum is backpropagated in the same iteration.
def per_iteration_loss_parts(train_loader, weight_decay=1e-4):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        parts = []
        # ok: TL101
        parts.append(criterion(model(x), y))
        parts.append(weight_decay * sum(p.pow(2).sum() for p in model.parameters()))
        loss = torch.stack(parts).sum()
        loss.backward()
        optimizer.step()


# OK: deep supervision: one loss per exit, listed inside the iteration and reduced into a single backward.
def deep_supervision_exit_losses(train_loader):
    model = MultiExitNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        exit_losses = []
        for logits in model(x):
            # ok: TL101
            exit_losses.append(criterion(logits, y))
        torch.stack(exit_losses).mean().backward()
        optimizer.step()


# OK: a fixed key overwritten every step holds at most one step's graph, like a plain name (the dict keeps no history).
def fixed_key_overwritten(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    latest = {}
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        latest["loss"] = loss
    return latest["loss"].item()


# OK: accuracy counts come from argmax and a comparison, which are not differentiable.
def accumulate_correct_count(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    correct = torch.zeros((), dtype=torch.long, device=device)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = model(x)
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        correct += (logits.argmax(dim=1) == y).sum()
    return correct.item()


# OK: `torch.set_grad_enabled(False)` is a grad-disabled context, so the stored scores have no history.
def scores_under_set_grad_enabled_false(model, test_loader):
    scores = []
    with torch.set_grad_enabled(False):
        for x, _ in test_loader:
            x = x.to(device)
            # ok: TL101
            scores.append(model(x))
    return torch.cat(scores)


# OK: a module-level alias `no_grad = torch.no_grad()` used as a decorator disables gradients like the real one.
@no_grad
def collect_embeddings_alias_decorator(model, loader):
    embeddings = []
    for x, _ in loader:
        x = x.to(device)
        # ok: TL101
        embeddings.append(model.body(x))
    return torch.cat(embeddings)


# OK: batches straight from the DataLoader carry no autograd history.
def cache_input_batches(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    replay = []
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        # ok: TL101
        replay.append((x, y))
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
    return replay


# OK: Hugging Face no_trainer style: `loss.detach().float()` is detached before the cast.
def hf_detach_float_accumulated(train_dataloader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased").to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5)
    model.train()
    total_loss = 0
    for batch in train_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        outputs = model(**batch)
        loss = outputs.loss
        # ok: TL101
        total_loss += loss.detach().float()
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
    return total_loss.item() / len(train_dataloader)


# OK: an exponential moving average of the loss value, kept as a Python float.
def smoothed_loss_value(train_loader):
    model = Net().to(device)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    smoothed = 0.0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # ok: TL101
        # expect: TL304
        smoothed = 0.98 * smoothed + 0.02 * loss.item()
    return smoothed


# OK: `self.` history that stores `loss.detach().cpu()`: a detached copy, no graph.
class DetachingTrainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.criterion = nn.CrossEntropyLoss()
        self.history = []

    def fit(self, train_loader):
        self.model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            loss.backward()
            self.optimizer.step()
            # ok: TL101
            # expect: TL304
            self.history.append(loss.detach().cpu())


# Flagged: the store happens in a helper object's method that the training
# loop calls once per step with the loss; the logger lives for the whole
# loop, so every step's graph stays in its history.
class StepLogger:
    def __init__(self):
        self.history = []

    def log_step(self, loss):
        # Reported where the loop hands it the loss, not here.
        # ok: TL101
        self.history.append(loss)


def train_with_logger(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    logger = StepLogger()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        logger.log_step(loss)


# Flagged: a running-average meter (`self.sum += val * n`) fed the loss
# tensor each step: the meter keeps a sum that carries every step's graph.
class RunningMeter:
    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        # Reported where the loop hands it the loss, not here.
        # ok: TL101
        self.sum += val * n
        self.count += n

    def average(self):
        return self.sum / max(self.count, 1)


def train_with_meter(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    meter = RunningMeter()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        meter.update(loss, x.size(0))
    return meter.average()


# Flagged: a moving average of the loss for a progress bar
# (`self.value = d * self.value + (1 - d) * val`) fed the loss tensor: each
# step's value holds the previous one, so every step's graph stays alive.
class MovingAverage:
    def __init__(self, decay=0.9):
        self.decay = decay
        self.value = None

    def update(self, val, decay=None):
        d = self.decay if decay is None else decay
        if self.value is None:
            self.value = val
        else:
            # ok: TL101
            self.value = d * self.value + (1 - d) * val


def train_with_moving_average(model, train_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    smooth = MovingAverage()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL101
        smooth.update(loss, 0.95)
        # ok: TL101
        smooth.update(loss.detach(), 0.95)
    return smooth.value


# OK: the same kind of meter fed numbers (`loss.item()` at the call), or fed
# losses under no_grad in evaluation.
class NumberMeter:
    def __init__(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        # ok: TL101
        self.sum += val * n
        self.count += n


def train_with_number_meter(model, train_loader, val_loader):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    meter = NumberMeter()
    for x, y in train_loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()
        # expect: TL304
        meter.update(loss.item(), x.size(0))
    model.eval()
    val_meter = NumberMeter()
    with torch.no_grad():
        for x, y in val_loader:
            val_meter.update(criterion(model(x), y), x.size(0))
    model.train()
    return meter.sum / meter.count, val_meter.sum / val_meter.count


# OK: a gradient-accumulation helper keeps the step losses on purpose: its
# total is backpropagated once every few steps, then started again.
class LossAccumulator:
    def __init__(self):
        self.total = 0

    def add(self, loss):
        # ok: TL101
        self.total += loss

    def reset(self):
        self.total = 0


def train_with_accumulator(model, train_loader, every=4):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    acc = LossAccumulator()
    for i, (x, y) in enumerate(train_loader):
        acc.add(criterion(model(x), y) / every)
        if (i + 1) % every == 0:
            acc.total.backward()
            optimizer.step()
            optimizer.zero_grad()
            acc.reset()


# OK: an inference pipeline's outputs (images made under the pipeline's own
# no_grad), collected over prompts.
def render_prompts(prompts):
    from diffusers import StableDiffusionPipeline

    pipe = StableDiffusionPipeline.from_pretrained("org/sd-model").to("cuda")
    images = []
    for prompt in prompts:
        image = pipe(prompt, num_inference_steps=25).images[0]
        # ok: TL101
        images.append(image)
    return images


# OK: a count the forward puts in its output dict next to the loss. Only
# the loss is backpropagated; the count is a plain number.
class CountingClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(32, 4)

    def forward(self, x, y):
        logits = self.fc(x)
        return {"loss": F.cross_entropy(logits, y), "n_exs": x.size()[0]}


def train_counting(loader):
    model = CountingClassifier().to(device)
    opt = optim.SGD(model.parameters(), lr=0.1)
    seen = 0
    kept = []
    for batch in loader:
        out = model(**batch)
        out["loss"].backward()
        opt.step()
        opt.zero_grad()
        # ok: TL101
        seen += out["n_exs"]
        # expect: TL101
        kept.append(out["loss"])
    return seen, kept


# An element under a key the file uses as a tensor (`.detach()` below) is a
# forward's tensor output: collected with gradients on, it keeps each graph.
def collect_features(model, batches):
    feats = []
    for batch in batches:
        out = model(**batch)
        # expect: TL106
        feats.append(out["features"])
    return torch.cat(feats), out["features"].detach()


# OK: tiled decoding inside a model's method. The tiles are collected and
# concatenated into the method's result; no training step runs in these loops,
# so nothing is kept from one step to the next. A module that keeps its
# outputs in its own state does keep them.
class TiledDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Conv2d(4, 3, 3, padding=1)
        self.history = []

    def decode_tiles(self, z, tile=64):
        rows = []
        for top in range(0, z.shape[-2], tile):
            row = []
            for left in range(0, z.shape[-1], tile):
                # ok: TL101
                row.append(self.net(z[..., top:top + tile, left:left + tile]))
            # ok: TL101
            rows.append(torch.cat(row, dim=-1))
        return torch.cat(rows, dim=-2)

    def decode_and_remember(self, z, tile=64):
        # Feature maps kept for later inspection, with their graphs, on
        # every call.
        out = []
        for top in range(0, z.shape[-2], tile):
            feat = self.net(z[..., top:top + tile, :])
            # expect: TL106
            self.history.append(feat)
            out.append(feat.detach())
        return out


# OK: a criterion that sums one loss term per output channel into a dict of
# totals it returns: the loop runs no step, and the dict lives for one call.
class PerChannelLoss:
    def __init__(self, model, channels):
        self.model = model
        self.channels = channels

    def __call__(self, sample):
        logits = self.model(sample["inputs"])
        totals = {"main": 0.0, "aux": 0.0}
        for ch in self.channels:
            for kind in totals:
                term = F.cross_entropy(logits[ch], sample[kind][ch])
                # ok: TL101
                totals[kind] += term
        return sum(totals.values()), totals


# An evaluation helper that keeps every batch's loss over a loader, with
# gradients on: each kept loss holds its batch's graph.
def evaluation_losses(model, val_loader):
    model.eval()
    per_batch = []
    for x, y in val_loader:
        # expect: TL106, TL102
        per_batch.append(F.cross_entropy(model(x), y))
    return per_batch


# OK: a criterion the file does not show returns the loss first and then its
# statistics (a sample count, a dict of logged numbers); only the loss is
# backpropagated. Keeping the statistics keeps no graph; keeping the loss does.
def train_with_external_criterion(model, criterion, batches, opt):
    sample_total = 0
    logged = {}
    kept = []
    for sample in batches:
        loss, sample_size, logging_output = criterion(model, sample)
        loss.backward()
        opt.step()
        opt.zero_grad()
        # ok: TL101
        sample_total += sample_size
        for key in logging_output:
            # ok: TL101
            logged[key] = logging_output[key]
        # expect: TL101
        kept.append(loss)
    return sample_total, logged, kept


# OK: the batches come from a sampler the file does not show, each a
# (count, nodes, blocks) tuple; the running total multiplies the loss's number
# by the count. The mean computed after the loop is named `loss` too, but it is
# bound after the loop's backward and never reaches it: the count carries no
# graph. The same sum of the tensor itself keeps every step's graph.
def train_sampled_batches(model, sampler, opt):
    total_loss = 0
    kept = 0
    for count, nodes, blocks in sampler:
        opt.zero_grad()
        loss = F.nll_loss(model(nodes, blocks), blocks[-1])
        loss.backward()
        opt.step()
        # ok: TL101
        # expect: TL304
        total_loss += loss.item() * count
        # expect: TL101
        kept += loss * count
    loss = total_loss / len(sampler)
    return loss, kept


# A step helper that skips the update on some runs hands back a plain number
# there and the backpropagated loss otherwise: the value may be a Python
# number or a tensor with its graph, and the number joins the tensor as a
# tensor. Keeping it keeps the graph on the runs that train; `.item()` in the
# helper leaves numbers only.
def critic_update(critic, opt, real, fake, enabled):
    if not enabled:
        return 0
    opt.zero_grad()
    loss = F.mse_loss(critic(fake), real)
    loss.backward()
    opt.step()
    return loss


def critic_update_number(critic, opt, real, fake, enabled):
    if not enabled:
        return 0.0
    opt.zero_grad()
    loss = F.mse_loss(critic(fake), real)
    loss.backward()
    opt.step()
    # expect: TL304
    return loss.item()


def train_critic(critic, opt, batches, enabled):
    history, plain = [], []
    for real, fake in batches:
        # expect: TL101
        history.append(critic_update(critic, opt, real, fake, enabled))
        # ok: TL101
        plain.append(critic_update_number(critic, opt, real, fake, enabled))
    return history, plain
