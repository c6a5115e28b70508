"""TL216 functional-dropout-always-on: fixtures.

An `expect` annotation sits before dropout that ignores `model.eval()` in
code a module runs: a functional dropout (`F.dropout`, `dropout2d`,
`alpha_dropout`, ... through any alias) with no `training` argument, in a
method of an nn.Module subclass or a helper it calls, and an nn.Dropout
built and called on the spot. An `ok` annotation sits before dropout that
follows the mode (`training=self.training`, by keyword or position; a
literal `training=True` is a decision), a probability of zero, code that
tests the mode itself or only runs in training (`training_step`) or without
gradients (sampling), registered dropout layers, and code no module runs.
"""
import pytorch_lightning as pl
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.functional import dropout as drop


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self, sizes, p=0.2):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes, sizes[1:]))
        self.p = p

    def forward(self, x):
        for layer in self.layers[:-1]:
            # expect: TL216
            x = F.dropout(F.relu(layer(x)), p=self.p)
        return self.layers[-1](x)


class ConvNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3)
        self.conv2 = nn.Conv2d(32, 64, 3)
        self.fc = nn.Linear(9216, 10)

    def forward(self, x):
        x = F.relu(self.conv2(F.relu(self.conv1(x))))
        # expect: TL216
        x = F.dropout2d(F.max_pool2d(x, 2), 0.25)
        # expect: TL216
        x = F.dropout(torch.flatten(x, 1))
        return self.fc(x)


def scaled_attention(q, k, v, dropout_p):
    weights = torch.softmax(q @ k.transpose(-2, -1) / q.size(-1) ** 0.5, dim=-1)
    # a helper the module's forward calls: it runs in the module
    # expect: TL216
    weights = drop(weights, dropout_p)
    return weights @ v


class SelfAttention(nn.Module):
    def __init__(self, dim, heads, dropout=0.1):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.heads = heads
        self.dropout = dropout

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        return scaled_attention(q, k, v, self.dropout)


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x):
        # a new layer is in train mode: model.eval() never reaches it
        # expect: TL216
        return x + nn.Dropout(0.1)(self.fc(x))

    @staticmethod
    def noisy(x):
        # expect: TL216
        return torch.nn.functional.alpha_dropout(x, 0.1)


class Encoder(pl.LightningModule):
    def __init__(self, dim):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        def residual(h):
            # expect: TL216
            return h + F.dropout(self.proj(h), 0.1)

        return residual(x)


class Tagger(nn.Module):
    def __init__(self, vocab, dim, tags, dropout):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, tags)
        self.dropout = dropout

    def forward(self, tokens):
        h = self.embed(tokens)
        # expect: TL216
        h = F.dropout(h, self.dropout, inplace=False)
        return self.out(h)

    def features(self, tokens):
        local_drop = nn.Dropout(self.dropout)
        # a layer built in a name first, then called: not followed yet
        # todo-expect: TL216
        return local_drop(self.embed(tokens))


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


class FollowsMode(nn.Module):
    def __init__(self, dim, p=0.5):
        super().__init__()
        self.fc = nn.Linear(dim, dim)
        self.p = p
        self.drop = nn.Dropout(p)

    def forward(self, x):
        # ok: TL216
        a = F.dropout(self.fc(x), p=self.p, training=self.training)
        # ok: TL216
        b = F.dropout(self.fc(x), self.p, self.training)
        # a registered layer follows model.eval()
        # ok: TL216
        c = self.drop(x)
        # a literal True is a decision (Monte Carlo dropout)
        # ok: TL216
        d = F.dropout(x, 0.1, training=True)
        return a + b + c + d


class ZeroOrForwarded(nn.Module):
    def forward(self, x, **kwargs):
        # ok: TL216
        a = F.dropout(x, p=0)
        no_dropout = 0.0
        # ok: TL216
        b = F.dropout(x, no_dropout)
        # ok: TL216
        c = F.dropout(x, 0.1, **kwargs)
        return a + b + c


class GuardedByMode(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if self.training:
            # ok: TL216
            x = F.dropout(x, self.p)
        p = self.p if self.training else 0.0
        # ok: TL216
        x = F.dropout(x, p)
        # ok: TL216
        return F.dropout(x, self.p) if self.training else x


class Prenet(nn.Module):
    """Tacotron's prenet keeps dropout on at inference, and says so."""

    def __init__(self, dims, p=0.5):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims, dims[1:]))
        self.p = p

    def forward(self, x):
        for layer in self.layers:
            # ok: TL216
            x = F.dropout(F.relu(layer(x)), p=self.p)  # always on, also at inference
        return x


class LitClassifier(pl.LightningModule):
    def __init__(self, dim, classes):
        super().__init__()
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        # training_step only runs in training
        # ok: TL216
        x = F.dropout(x, 0.1)
        return F.cross_entropy(self(x), y)


class Sampler(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.model = model

    @torch.no_grad()
    def sample(self, x, noise_dropout=0.0):
        noise = torch.randn_like(x)
        # sampling noise, on purpose, in code that only runs without gradients
        # ok: TL216
        noise = F.dropout(noise, p=noise_dropout)
        return self.model(x) + noise


def augment(batch):
    # a data augmentation outside any module
    # ok: TL216
    return F.dropout(batch, 0.1)


class FeatureDropper:
    """A plain class, not an nn.Module: no model.eval() to ignore."""

    def __call__(self, x):
        # ok: TL216
        return F.dropout(x, 0.2)


def train(model, loader, opt):
    for x, y in loader:
        # input noise in the training loop, outside the model
        # ok: TL216
        x = F.dropout(x, 0.05)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()


# A dropout layer built in forward at a rate the caller hands it: the test
# loop calls the network with a rate of 0.0, so the callers switch the layer
# off themselves where they evaluate (silent). The twin whose callers always
# hand a rate that is not zero keeps dropping at evaluation (TL216).
class RateByCaller(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.hidden = nn.Linear(d_in, 64)
        self.out = nn.Linear(64, d_out)

    def forward(self, x, rate):
        h = F.relu(self.hidden(x))
        # ok: TL216
        h = nn.Dropout(rate)(h)
        return self.out(h)


class RateAlwaysOn(nn.Module):
    def __init__(self, d_in, d_out):
        super().__init__()
        self.hidden = nn.Linear(d_in, 64)
        self.out = nn.Linear(64, d_out)

    def forward(self, x, rate):
        h = F.relu(self.hidden(x))
        # expect: TL216
        h = nn.Dropout(rate)(h)
        return self.out(h)


def fit_and_score(batches, test_batches, keep):
    by_caller = RateByCaller(32, 10)
    always_on = RateAlwaysOn(32, 10)
    opt = torch.optim.SGD(list(by_caller.parameters()) + list(always_on.parameters()), lr=0.1)
    for x, y in batches:
        loss = F.cross_entropy(by_caller(x, keep), y) + F.cross_entropy(always_on(x, keep), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad():
        return [(by_caller(x, 0.0), always_on(x, keep)) for x, _ in test_batches]
