"""TL212 evaluation-in-train-mode: evaluation passes with gradients on.

An evaluation pass is the validation or test pass of a program that trains
the model: a loop over data whose forward results reach no backward and no
optimizer step, whether or not it disables gradients. Without `no_grad()`
such a pass is also TL102's. An `expect` annotation sits before the first
forward of a pass over a model with dropout or batch-norm layers that
nothing put in eval mode; an `ok` annotation before the passes after
`.eval()` (in place, at every call site, in a project context manager),
the loops whose output trains, the programs that train nothing, the models
whose layers act the same in both modes, and loops over a counter
(sampling), which are no evaluation pass.
"""
import contextlib

import torch
import torch.nn as nn
import torch.nn.functional as F
from tqdm import tqdm


class DropNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.drop = nn.Dropout(0.5)
        self.fc2 = nn.Linear(64, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class BNNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(20, 64), nn.BatchNorm1d(64), nn.ReLU())
        self.head = nn.Linear(64, 3)

    def forward(self, x):
        return self.head(self.body(x))


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(20, 3)

    def forward(self, x):
        return self.fc(x)


# Flagged: the test pass after each epoch, in the same function, with the
# model still in the train mode the epoch set.
def train_and_test(train_loader, test_loader, epochs):
    model = BNNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        correct = 0
        for x, y in test_loader:
            # expect: TL102, TL212
            out = model(x)
            correct += (out.argmax(1) == y).sum().item()
        print(correct)


# Flagged: a validation helper the training loop calls, with no eval().
def validate(model, loader):
    total = 0.0
    for x, y in loader:
        # expect: TL102, TL212
        total += F.cross_entropy(model(x), y).item()
    return total / len(loader)


def fit(train_loader, val_loader):
    model = DropNet()
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(10):
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(epoch, validate(model, val_loader))


# Flagged: an nn.Sequential with dropout, evaluated by a helper over
# enumerate(tqdm(loader)) after each epoch of training.
def run(train_loader, val_loader):
    model = nn.Sequential(nn.Linear(20, 20), nn.Dropout(0.1), nn.Linear(20, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for _ in range(5):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        evaluate_loss(model, val_loader, F.cross_entropy)


def evaluate_loss(net, loader, criterion):
    losses = []
    for step, (x, y) in enumerate(tqdm(loader)):
        # expect: TL102, TL212
        losses.append(criterion(net(x), y).item())
    return losses


# Flagged: a method of a trainer class whose other method trains.
class Trainer:
    def __init__(self, loader, val_loader):
        self.model = DropNet()
        self.opt = torch.optim.Adam(self.model.parameters())
        self.loader = loader
        self.val_loader = val_loader

    def train_epoch(self):
        self.model.train()
        for x, y in self.loader:
            loss = F.cross_entropy(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def evaluate(self):
        scores = []
        for x, y in self.val_loader:
            # expect: TL102
            # A method no code of the file calls: its mode is not followed yet.
            # todo-expect: TL212
            scores.append(self.model(x).argmax(1).eq(y).float().mean().item())
        return sum(scores)


# OK: a validation loop after .eval() under no_grad.
def fit_eval_no_grad(train_loader, val_loader):
    model = DropNet()
    opt = torch.optim.Adam(model.parameters())
    for _ in range(3):
        model.train()
        for x, y in train_loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL102, TL212
                print(model(x).argmax(1).eq(y).sum().item())


# OK: a loop whose output reaches a backward trains (a second pass of
# fine-tuning on another loader is no evaluation).
def two_stage(loader_a, loader_b):
    model = DropNet()
    opt = torch.optim.Adam(model.parameters())
    for x, y in loader_a:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    for x, y in loader_b:
        # ok: TL102, TL212
        out = model(x)
        loss = F.mse_loss(out, y)
        loss.backward()


# OK: a model without dropout or batch norm: no TL212 (TL102 still holds).
def fit_plain(train_loader, val_loader):
    model = Plain()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    for x, y in val_loader:
        # expect: TL102
        # ok: TL212
        print(model(x).sum().item())


@contextlib.contextmanager
def eval_mode(net):
    was = net.training
    net.eval()
    yield
    net.train(was)


# OK: a project context manager that calls .eval(), with no_grad.
def fit_with_eval_mode(train_loader, val_loader):
    model = BNNet()
    opt = torch.optim.Adam(model.parameters())
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    with torch.no_grad(), eval_mode(model):
        for x, y in val_loader:
            # ok: TL102, TL212
            print(model(x).argmax(1).eq(y).sum().item())


# OK: sampling over a counter is no evaluation pass (no data iterated).
def fit_then_sample(train_loader, steps):
    model = DropNet()
    opt = torch.optim.Adam(model.parameters())
    for x, y in train_loader:
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    z = torch.zeros(1, 20)
    for _ in range(steps):
        # ok: TL102, TL212
        z = model(z)[:, :1].repeat(1, 20)
    return z


# OK: a prediction function over a freshly built model nothing trains.
def predict(loader):
    model = BNNet()
    preds = []
    for x, _ in loader:
        # ok: TL102, TL212
        preds.append(model(x).argmax(1))
    return preds


# OK: a sample drawn from the generator every N steps of the training loop
# over data: a function called from a loop that trains is no evaluation pass.
def sample_images(generator, val_batch, step):
    # ok: TL102, TL212
    fake = generator(val_batch)
    print(step, fake.mean().item())


def train_gan(loader, val_batch):
    generator = nn.Sequential(nn.Linear(20, 20), nn.BatchNorm1d(20))
    opt = torch.optim.Adam(generator.parameters())
    for step, (x, y) in enumerate(loader):
        loss = F.mse_loss(generator(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            sample_images(generator, val_batch, step)


# OK: no model evaluated over data: a loop over layers (`for layer in
# layers`), a model built in a test method of a class whose other method
# trains, a forward bound to `_` that initialises lazy modules, and a
# criterion in the flagged pass below (the model's forward is the finding).
class LayerTests:
    def test_trains(self, loader):
        model = DropNet()
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()

    def test_shapes(self, cases):
        for case in cases:
            net = BNNet()
            # ok: TL102, TL212
            out = net(case)
            assert out.shape[1] == 3


def stack_and_init(layers, loader, train_loader):
    model = DropNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x in loader:
        # ok: TL102, TL212
        _ = model(x)
        break
    for x, y in train_loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
    x = torch.zeros(2, 20)
    for layer in layers:
        # ok: TL102, TL212
        x = layer(x)
    criterion = nn.NLLLoss()
    for x, y in loader:
        # expect: TL102, TL212
        out = model(x)
        # ok: TL102
        print(criterion(out, y).item())
