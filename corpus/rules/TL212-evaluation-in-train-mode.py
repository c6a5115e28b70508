"""TL212 evaluation-in-train-mode: fixtures.

An `expect` annotation sits before the first forward of an evaluation pass
(a loop, or a function, that runs the model with gradients off and trains
nothing) of a model with dropout or batch-norm layers that nothing has put
in eval mode: `no_grad()` alone leaves dropout on and lets batch norm use,
and update its running statistics from, the evaluation batches. An `ok`
annotation sits before evaluations after `model.eval()` (in place, in a
helper, a context manager, `train(False)`), models whose layers act the
same in both modes, forwards that train or feed a training step, and train
mode chosen on purpose (Monte Carlo dropout, a batch-norm recalibration).
"""
import contextlib

import timm
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from transformers import AutoModelForSequenceClassification


class DropNet(nn.Module):
    def __init__(self, p=0.5):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.drop = nn.Dropout(p)
        self.fc2 = nn.Linear(64, 3)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class ConvBN(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8), nn.ReLU())
        self.head = nn.Linear(8, 10)

    def forward(self, x):
        return self.head(self.body(x).mean((2, 3)))


class FunctionalDrop(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(20, 3)

    def forward(self, x):
        return self.fc(F.dropout(x, 0.2, training=self.training))


class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 3)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


class ProbeShape(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3), nn.BatchNorm2d(8))
        with torch.no_grad():
            # ok: TL212
            n = self.features(torch.zeros(1, 3, 16, 16)).numel()
        self.head = nn.Linear(n, 10)


def train_epoch(model, loader, opt):
    model.train()
    for x, y in loader:
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def test_no_eval(model, loader):
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            out = model(x)
            correct += (out.argmax(1) == y).sum().item()
    return correct


def run_helper_evaluation(train_loader, val_loader):
    model = DropNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        train_epoch(model, train_loader, opt)
        test_no_eval(model, val_loader)


def run_inline_evaluation(train_loader, val_loader):
    model = ConvBN()
    opt = torch.optim.Adam(model.parameters())
    for epoch in range(10):
        model.train()
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(model(x), y).backward()
            opt.step()
        total = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                # expect: TL212
                total += F.cross_entropy(model(x), y).item()
        print(epoch, total)


@torch.no_grad()
def decorated_eval(net, loader):
    hits = []
    for x, y in loader:
        # expect: TL212
        hits.append((net(x).argmax(1) == y).float().mean().item())
    return sum(hits) / len(hits)


def run_decorated(train_loader, val_loader):
    net = FunctionalDrop()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    for epoch in range(5):
        train_epoch(net, train_loader, opt)
        print(decorated_eval(net, val_loader))


def run_inference_mode_sequential(train_loader, val_loader):
    model = nn.Sequential(nn.Linear(20, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(5):
        train_epoch(model, train_loader, opt)
        with torch.inference_mode():
            for x, y in val_loader:
                # expect: TL212
                preds = model(x).argmax(1)
                print((preds == y).float().mean().item())


def run_torchvision(train_loader, val_loader, device):
    model = torchvision.models.resnet18(num_classes=10).to(device)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    for epoch in range(90):
        train_epoch(model, train_loader, opt)
        with torch.no_grad():
            for images, target in val_loader:
                # expect: TL212
                output = model(images.to(device))
                # ok: TL212
                flipped = model(images.flip(3).to(device))
                print((output + flipped).argmax(1).eq(target.to(device)).sum().item())


def run_timm_set_grad_enabled(train_loader, val_loader):
    model = timm.create_model("resnet50", pretrained=False, num_classes=10)
    opt = torch.optim.AdamW(model.parameters())
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        with torch.set_grad_enabled(False):
            for x, y in val_loader:
                # expect: TL212
                logits = model(x)
                print(F.cross_entropy(logits, y).item())


def run_appended_layers(train_loader, val_loader, width=32):
    layers = []
    for _ in range(3):
        layers.append(nn.Linear(width, width))
        layers.append(nn.Dropout(0.1))
    mlp = nn.Sequential(*layers)
    opt = torch.optim.SGD(mlp.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(mlp, train_loader, opt)
        with torch.no_grad():
            for x, y in val_loader:
                # expect: TL212
                err = (mlp(x) - y).pow(2).mean()
                print(err.item())


def predict(model, x):
    with torch.no_grad():
        # expect: TL212
        return model(x).softmax(-1)


def run_predict_helper(train_loader, test_batches):
    model = DropNet(0.3)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    train_epoch(model, train_loader, opt)
    for x in test_batches:
        print(predict(model, x))


class Trainer:
    def __init__(self, train_loader, val_loader):
        self.model = ConvBN()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.train_loader = train_loader
        self.val_loader = val_loader

    def train_one_epoch(self):
        self.model.train()
        for x, y in self.train_loader:
            self.opt.zero_grad()
            F.cross_entropy(self.model(x), y).backward()
            self.opt.step()

    def validate(self):
        losses = []
        with torch.no_grad():
            for x, y in self.val_loader:
                # expect: TL212
                losses.append(F.cross_entropy(self.model(x), y).item())
        return sum(losses) / len(losses)

    def fit(self, epochs):
        for epoch in range(epochs):
            self.train_one_epoch()
            print(self.validate())


def run_trainer(train_loader, val_loader):
    trainer = Trainer(train_loader, val_loader)
    trainer.fit(10)


def run_full_batch(data, labels, mask):
    model = DropNet()
    opt = torch.optim.Adam(model.parameters(), lr=0.01)

    def step():
        opt.zero_grad()
        F.cross_entropy(model(data)[mask], labels[mask]).backward()
        opt.step()

    def test():
        with torch.no_grad():
            # expect: TL212
            pred = model(data).argmax(1)
        return (pred[~mask] == labels[~mask]).float().mean()

    for epoch in range(200):
        step()
        if epoch % 10 == 0:
            print(test().item())


# ---------------------------------------------------------------------------
# Known misses
# ---------------------------------------------------------------------------


def run_periodic_inline(train_loader, x_val, y_val):
    model = DropNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step, (x, y) in enumerate(train_loader):
        opt.zero_grad()
        F.cross_entropy(model(x), y).backward()
        opt.step()
        if step % 100 == 0:
            with torch.no_grad():
                # todo-expect: TL212
                val = F.cross_entropy(model(x_val), y_val)
            print(val.item())


def run_eval_long_before(train_loader, val_loader):
    model = DropNet()
    model.eval()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        with torch.no_grad():
            for x, y in val_loader:
                # todo-expect: TL212
                print(model(x).argmax(1).eq(y).sum().item())


def make_mlp(width):
    layers = []
    for _ in range(3):
        layers.append(nn.Linear(width, width))
        layers.append(nn.Dropout(0.1))
    return nn.Sequential(*layers)


def run_local_factory(train_loader, val_loader):
    # The module a local factory returns is not followed to its construction.
    mlp = make_mlp(32)
    opt = torch.optim.SGD(mlp.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(mlp, train_loader, opt)
        with torch.no_grad():
            for x, y in val_loader:
                # todo-expect: TL212
                print((mlp(x) - y).pow(2).mean().item())


# ---------------------------------------------------------------------------
# Correct
# ---------------------------------------------------------------------------


def test_with_eval(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # ok: TL212
            out = model(x)
            correct += (out.argmax(1) == y).sum().item()
    model.train()
    return correct


def run_eval_in_helper(train_loader, val_loader):
    model = DropNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(10):
        train_epoch(model, train_loader, opt)
        test_with_eval(model, val_loader)


def set_eval(*models):
    for m in models:
        m.eval()


def run_eval_through_setter(train_loader, val_loader):
    model = ConvBN()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        set_eval(model)
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())


@contextlib.contextmanager
def evaluating(net):
    was = net.training
    net.eval()
    try:
        yield net
    finally:
        net.train(was)


def run_eval_context_manager(train_loader, val_loader):
    model = DropNet()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        with evaluating(model), torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())


def run_train_false(train_loader, val_loader):
    model = nn.Sequential(nn.Linear(20, 20), nn.Dropout(0.2), nn.Linear(20, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        model.train(False)
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())


def run_plain_model(train_loader, val_loader):
    model = Plain()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())


def run_zero_dropout(train_loader, val_loader):
    model = nn.Sequential(nn.Linear(20, 20), nn.Dropout(p=0.0), nn.Linear(20, 3))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())


def recalibrate_bn(model, loader):
    model.train()
    with torch.no_grad():
        for x, _ in loader:
            # ok: TL212
            model(x)


def mc_dropout_predict(model, x, samples=20):
    model.train()
    with torch.no_grad():
        # ok: TL212
        outs = [model(x).softmax(-1) for _ in range(samples)]
    return torch.stack(outs).mean(0)


def run_train_mode_on_purpose(train_loader, val_loader, x):
    model = ConvBN()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
    recalibrate_bn(model, train_loader)
    model.train()
    with torch.no_grad():
        for x, y in val_loader:
            # ok: TL212
            print(model(x).softmax(-1).var().item())
    print(mc_dropout_predict(model, x))


def run_distillation(train_loader):
    teacher = torchvision.models.resnet50()
    student = DropNet()
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for x, y in train_loader:
        with torch.no_grad():
            # ok: TL212
            soft = teacher(x).softmax(-1)
        loss = F.kl_div(student(x).log_softmax(-1), soft, reduction="batchmean")
        opt.zero_grad()
        loss.backward()
        opt.step()


def teacher_targets(teacher, x):
    with torch.no_grad():
        # ok: TL212
        return teacher(x).softmax(-1)


def run_distillation_helper(train_loader):
    teacher = ConvBN()
    student = DropNet()
    opt = torch.optim.SGD(student.parameters(), lr=0.1)
    for x, y in train_loader:
        soft = teacher_targets(teacher, x)
        loss = F.kl_div(student(x).log_softmax(-1), soft, reduction="batchmean")
        opt.zero_grad()
        loss.backward()
        opt.step()


def run_gan_samples(loader, fixed_noise):
    netG = nn.Sequential(nn.Linear(8, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Linear(32, 20))
    opt = torch.optim.Adam(netG.parameters())
    for i, real in enumerate(loader):
        opt.zero_grad()
        fake = netG(torch.randn(real.size(0), 8))
        ((fake - real) ** 2).mean().backward()
        opt.step()
        with torch.no_grad():
            # ok: TL212
            sample = netG(fixed_noise)
        print(sample.shape)


def run_pretrained_hf(loader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    with torch.no_grad():
        for batch in loader:
            # ok: TL212
            print(model(**batch).logits.argmax(-1))


def evaluate_library(model, loader):
    # No caller in this file: the caller may well have called model.eval().
    with torch.no_grad():
        for x, y in loader:
            # ok: TL212
            print(model(x).argmax(1).eq(y).sum().item())


def run_freeze_bn(train_loader, val_loader):
    model = ConvBN()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        for m in model.modules():
            if isinstance(m, nn.BatchNorm2d):
                m.eval()
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())


def run_alias_eval(train_loader, val_loader):
    model = DropNet()
    net = model
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(3):
        train_epoch(model, train_loader, opt)
        net.eval()
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                print(model(x).argmax(1).eq(y).sum().item())
        net.train()


shape_probe = ConvBN()
with torch.no_grad():
    # ok: TL212
    probe = shape_probe(torch.zeros(2, 3, 16, 16))


# A network whose forward builds its dropout at the rate it is handed: the
# evaluation loop that hands it 0.0 runs it with the dropout the identity and
# no other layer that acts by the mode (silent); the one that hands it the
# training rate keeps dropping (TL212).
class RateInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(20, 64)
        self.fc2 = nn.Linear(64, 3)

    def forward(self, x, rate):
        return self.fc2(nn.Dropout(rate)(F.relu(self.fc1(x))))


def run_rate_in_forward(train_loader, val_loader, rate):
    net = RateInForward()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(10):
        for x, y in train_loader:
            opt.zero_grad()
            F.cross_entropy(net(x, rate), y).backward()
            opt.step()
        with torch.no_grad():
            for x, y in val_loader:
                # ok: TL212
                off = net(x, 0.0)
        with torch.no_grad():
            for x, y in val_loader:
                # expect: TL212
                kept = net(x, rate)
    return off, kept
