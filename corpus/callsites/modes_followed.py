"""Module modes the semantic model follows through lists, dicts, helpers,
constructors, a model's own methods and globals.

Each flagged shape runs a model in eval mode with gradient tracking on
(TL102); its twin runs it under no_grad, or switches it back to train mode
first, or leaves the mode to a caller that does not agree.
"""
import torch
import torch.nn as nn


def make_net():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.1), nn.Linear(8, 2))


# A loop that switches every element of a list it runs over.
def ensemble_scores(x):
    nets = [make_net(), make_net()]
    for net in nets:
        net.eval()
    # expect: TL102
    return [net(x) for net in nets]


def ensemble_scores_no_grad(x):
    nets = [make_net(), make_net()]
    for net in nets:
        net.eval()
    with torch.no_grad():
        # ok: TL102
        return [net(x) for net in nets]


def ensemble_scores_trained_again(x):
    nets = [make_net(), make_net()]
    for net in nets:
        net.eval()
    for net in nets:
        net.train()
    # ok: TL102
    return [net(x) for net in nets]


# A helper that switches every model of the list it is handed.
def put_in_eval(models):
    for m in models:
        m.eval()


def put_in_train(models):
    for m in models:
        m.train()


def compare_pair(x):
    student, teacher = make_net(), make_net()
    put_in_eval([student, teacher])
    # expect: TL102
    a = student(x)
    # expect: TL102
    b = teacher(x)
    return (a - b).abs().mean().item()


def compare_pair_trained(x, y):
    student, teacher = make_net(), make_net()
    put_in_eval([student, teacher])
    put_in_train([student, teacher])
    # ok: TL102
    loss = nn.functional.cross_entropy(student(x), y) + nn.functional.cross_entropy(teacher(x), y)
    loss.backward()


# A dict of models put in eval mode by a loop over its keys, run by another method.
class GanEvaluator:
    def __init__(self, nets, loader):
        self.nets = nets
        self.loader = loader

    def _score(self, z):
        # expect: TL102
        fake = self.nets["gen"](z)
        # expect: TL102
        return self.nets["disc"](fake).mean().item()

    @torch.no_grad()
    def _score_no_grad(self, z):
        # ok: TL102
        fake = self.nets["gen"](z)
        # ok: TL102
        return self.nets["disc"](fake).mean().item()

    def evaluate(self):
        for key in self.nets.keys():
            self.nets[key].eval()
        total = 0.0
        for z in self.loader:
            total += self._score(z) + self._score_no_grad(z)
        for key in self.nets:
            self.nets[key].train()
        return total


# A constructor that puts the model it keeps in eval mode.
class Scorer:
    def __init__(self, model):
        self.model = model
        self.model.eval()

    def score(self, x):
        # expect: TL102
        return self.model(x).softmax(-1)

    @torch.no_grad()
    def score_no_grad(self, x):
        # ok: TL102
        return self.model(x).softmax(-1)


class Tuner:
    def __init__(self, model):
        self.model = model
        self.model.eval()
        self.opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def score(self, x):
        # another method switches it back: its mode here depends on the order of calls
        # ok: TL102
        return self.model(x).softmax(-1)

    def fit(self, x, y):
        self.model.train()
        loss = nn.functional.cross_entropy(self.model(x), y)
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


# A module's own method, run only by its other methods after they switch a submodule.
class Prober(nn.Module):
    def __init__(self, backbone):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(2, 2)

    def _features(self, x):
        # expect: TL102
        return self.backbone(x)

    def probe(self, x):
        self.backbone.eval()
        return self.head(self._features(x).detach())

    def _features_trained(self, x):
        # ok: TL102
        return self.backbone(x)

    def fit_all(self, x):
        self.backbone.train()
        return self.head(self._features_trained(x))


# A global model read by a helper the module's code calls after switching it.
global_net = make_net()
global_net.eval()


def global_predict(x):
    # ok: TL102
    return global_net(x).argmax(-1)


# expect: TL102
global_labels = global_predict(torch.randn(2, 4))
global_net.train()
# ok: TL102
global_labels_trained = global_predict(torch.randn(2, 4))


# `model.train(flag)` with the flag each call passes.
def run_pass(model, batches, train=True):
    model.train(train)
    total = 0.0
    for x, y in batches:
        loss = nn.functional.cross_entropy(model(x), y)
        if train:
            loss.backward()
        total += loss.item()
    return total


def fit_and_validate(batches, val_batches):
    model = make_net()
    # ok: TL102
    run_pass(model, batches)
    # expect: TL102
    run_pass(model, val_batches, train=False)
    # ok: TL102
    run_pass(model, batches, True)


# A closure reads its enclosing function's model in the mode that function
# leaves it in where it calls the closure.
def fit_with_closure(loader, epochs):
    model = make_net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def run_epoch(train):
        total = 0.0
        for x in loader:
            loss = model(x).sum()
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            total += loss.item()
        return total

    for _ in range(epochs):
        model.train()
        run_epoch(True)
        model.eval()
        # expect: TL102
        run_epoch(False)


def fit_with_closure_no_grad(loader, epochs):
    model = make_net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)

    def run_epoch(train):
        total = 0.0
        for x in loader:
            loss = model(x).sum()
            if train:
                opt.zero_grad()
                loss.backward()
                opt.step()
            total += loss.item()
        return total

    for _ in range(epochs):
        model.train()
        run_epoch(True)
        model.eval()
        with torch.no_grad():
            # ok: TL102
            run_epoch(False)


# A hook whose constructor loads its model in eval mode; its run method
# rebinds its own parameter (no switch of any mode in it): the model is
# still in the mode the constructor left.
class ClassifyHook:
    def __init__(self, name):
        self.preprocess = nn.Identity()
        self.model = torch.hub.load("org/models", name, pretrained=True)
        self.model = self.model.eval()

    def run(self, status):
        status = self.preprocess(status)
        # expect: TL102
        return self.model(status["video"])

    @torch.no_grad()
    def run_no_grad(self, status):
        status = self.preprocess(status)
        # ok: TL102
        return self.model(status["video"])


# A helper that saves the mode it is handed and restores it.
def count_flops(model, x):
    was_training = model.training
    model.eval()
    with torch.no_grad():
        flops = model(x).numel()
    model.train(was_training)
    return flops


def evaluate_after_stats(x):
    net = make_net()
    net.eval()
    count_flops(net, x)
    # expect: TL102
    return net(x)


def train_after_stats(x):
    net = make_net()
    count_flops(net, x)
    # ok: TL102
    return net(x)
