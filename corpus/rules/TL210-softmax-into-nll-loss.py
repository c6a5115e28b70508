"""TL210 softmax-into-nll-loss: fixtures.

An `expect` annotation sits before an NLL loss (`F.nll_loss`, an
`nn.NLLLoss` criterion) whose input is a softmax output (explicit in the
function, or a model whose every output ends in a softmax) instead of a
log-softmax one. An `ok` annotation sits before log-softmax inputs (the
MNIST example's model), logs of probabilities, and softmax used for
metrics.
"""
import torch
import torch.nn.functional as F
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class MnistNet(nn.Module):
    """pytorch/examples MNIST: forward ends in log_softmax."""

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.fc1(x.flatten(1)))
        return F.log_softmax(self.fc2(x), dim=1)


class ProbNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(784, 10)

    def forward(self, x):
        return F.softmax(self.fc(x.flatten(1)), dim=1)


class CharRNN(nn.Module):
    """The classic tutorial names its LogSoftmax `softmax`."""

    def __init__(self, n_in=57, n_hidden=128, n_out=18):
        super().__init__()
        self.i2h = nn.Linear(n_in + n_hidden, n_hidden)
        self.i2o = nn.Linear(n_in + n_hidden, n_out)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x, h):
        combined = torch.cat((x, h), 1)
        return self.softmax(self.i2o(combined)), self.i2h(combined)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: F.softmax into F.nll_loss.
def functional(logits, y):
    # expect: TL210
    return F.nll_loss(F.softmax(logits, dim=1), y)


# Flagged: `.softmax()` through a name into an NLLLoss criterion.
def named(model, loader, optimizer):
    criterion = nn.NLLLoss()
    for x, y in loader:
        optimizer.zero_grad()
        probs = model(x).softmax(-1)
        # expect: TL210
        loss = criterion(probs, y)
        loss.backward()
        optimizer.step()


# Flagged: an nn.Sequential whose last layer is nn.Softmax.
def sequential_softmax(x, y):
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10), nn.Softmax(dim=1))
    # expect: TL210
    return F.nll_loss(model(x), y)


# Flagged: a local model whose forward returns F.softmax(...).
def local_model(loader, optimizer):
    model = ProbNet().to(device)
    for x, y in loader:
        optimizer.zero_grad()
        output = model(x)
        # expect: TL210
        loss = F.nll_loss(output, y)
        loss.backward()
        optimizer.step()


# Flagged: torch.softmax into a criterion moved to the GPU.
def criterion_on_gpu(logits, y):
    criterion = nn.NLLLoss(ignore_index=-100).cuda()
    # expect: TL210
    return criterion(torch.softmax(logits, dim=-1), y)


# Flagged: a nested Sequential head ending in nn.Softmax.
def nested_sequential(x, y):
    model = nn.Sequential(nn.Flatten(), nn.Sequential(nn.Linear(784, 10), nn.Softmax(dim=-1)))
    # expect: TL210
    return nn.NLLLoss()(model(x), y)


# Flagged: a slice of the probabilities.
def sliced(logits, y):
    probs = F.softmax(logits, dim=-1)
    # expect: TL210
    return F.nll_loss(probs[:, :-1], y)


# Flagged: reshaped for a sequence model.
def sequence(logits, y, vocab):
    probs = logits.softmax(dim=-1)
    # expect: TL210
    return F.nll_loss(probs.reshape(-1, vocab), y.reshape(-1))


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the MNIST example: the model ends in log_softmax.
def mnist(loader, optimizer):
    model = MnistNet().to(device)
    for x, y in loader:
        optimizer.zero_grad()
        output = model(x)
        # ok: TL210
        loss = F.nll_loss(output, y)
        loss.backward()
        optimizer.step()


# OK for TL210: the log of the probabilities is what NLLLoss expects (TL403
# still reports the unstable log of a softmax).
def log_of_softmax(logits, y):
    # ok: TL210
    # expect: TL403
    return F.nll_loss(torch.log(F.softmax(logits, dim=1)), y)


# OK: `.log()` on the probabilities, with an epsilon through a name.
def log_method(logits, y):
    probs = F.softmax(logits, dim=1)
    # ok: TL210
    return F.nll_loss((probs + 1e-8).log(), y)


# OK: an nn.LogSoftmax last layer.
def log_softmax_layer(x, y):
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10), nn.LogSoftmax(dim=1))
    # ok: TL210
    return nn.NLLLoss()(model(x), y)


# OK: the char-RNN tutorial's `self.softmax` is a LogSoftmax.
def char_rnn_step(x, h, y):
    model = CharRNN()
    output, h = model(x, h)
    # ok: TL210
    return F.nll_loss(output, y), h


# OK: log_softmax for the loss, softmax for the reported confidence.
def softmax_for_metrics(logits, y):
    confidence = F.softmax(logits, dim=1).max(1).values
    # ok: TL210
    loss = F.nll_loss(F.log_softmax(logits, dim=1), y)
    return loss, confidence.mean()


# OK: the loss is cross-entropy, not NLL (TL208's business, and logits here).
def cross_entropy_on_logits(logits, y):
    # ok: TL210
    return F.cross_entropy(logits, y)


# OK: log_softmax method through a name.
def log_softmax_method(logits, y):
    logp = logits.log_softmax(-1)
    # ok: TL210
    return nn.NLLLoss(reduction="sum")(logp, y)
