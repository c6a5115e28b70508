"""TL208 softmax-before-cross-entropy: fixtures.

An `expect` annotation sits before a cross-entropy loss (`F.cross_entropy`,
an `nn.CrossEntropyLoss` criterion) whose input is a softmax output: an
explicit softmax in the function (through names, reshapes and an
`nn.Softmax` module called there), or a model whose every output ends in a
softmax (the last layer of an `nn.Sequential`, every return of a local
module's forward). An `ok` annotation sits before losses on logits,
softmax used only for metrics or as soft targets, log-probabilities, and
models whose softmax is applied only in some of their returns.
"""
import torch
import torch.nn.functional as F
from torch import nn

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class SoftmaxNet(nn.Module):
    """A classifier whose forward returns probabilities."""

    def __init__(self, classes=10):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, classes)

    def forward(self, x):
        h = F.relu(self.fc1(x.flatten(1)))
        return F.softmax(self.fc2(h), dim=1)


class HeadNet(nn.Module):
    """The softmax is the last layer of a Sequential head."""

    def __init__(self, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU())
        self.classifier = nn.Sequential(nn.Linear(256, classes), nn.Softmax(dim=-1))

    def forward(self, x):
        return self.classifier(self.body(x))


class AuxDiscriminator(nn.Module):
    """AC-GAN style: a validity score and class probabilities from an auxiliary head."""

    def __init__(self, classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.LeakyReLU(0.2))
        self.adv_layer = nn.Sequential(nn.Linear(256, 1), nn.Sigmoid())
        self.aux_layer = nn.Sequential(nn.Linear(256, classes), nn.Softmax(dim=1))
        self.aux_logits = nn.Linear(256, classes)

    def forward(self, img):
        h = self.body(img)
        return self.adv_layer(h), self.aux_layer(h), self.aux_logits(h)


class ProbsAtInference(nn.Module):
    """Returns logits while training and probabilities otherwise."""

    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(784, classes)

    def forward(self, x):
        logits = self.fc(x.flatten(1))
        if self.training:
            return logits
        return logits.softmax(-1)


class LogSoftmaxNet(nn.Module):
    """Named `softmax`, but a LogSoftmax (as in the classic char-RNN tutorial)."""

    def __init__(self, classes=10):
        super().__init__()
        self.fc = nn.Linear(784, classes)
        self.softmax = nn.LogSoftmax(dim=1)

    def forward(self, x):
        return self.softmax(self.fc(x.flatten(1)))


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: F.softmax fed straight into F.cross_entropy.
def functional_softmax(model, x, y):
    logits = model(x)
    # expect: TL208
    return F.cross_entropy(F.softmax(logits, dim=1), y)


# Flagged: torch.softmax through a name, into a criterion module.
def named_probs(model, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        probs = torch.softmax(model(x), dim=-1)
        # expect: TL208
        loss = criterion(probs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Flagged: the tensor method `.softmax()`, and an inline criterion.
def tensor_method(logits, y):
    # expect: TL208
    return nn.CrossEntropyLoss()(logits.softmax(dim=-1), y)


# Flagged: an nn.Sequential model whose last layer is nn.Softmax.
def sequential_with_softmax(loader):
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10), nn.Softmax(dim=1)).to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        # expect: TL208
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


# Flagged: a local model whose forward always returns F.softmax(...).
def local_model_softmax(loader):
    model = SoftmaxNet().to(device)
    criterion = nn.CrossEntropyLoss().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        out = model(x)
        # expect: TL208
        loss = criterion(out, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Flagged: the softmax is the last layer of the model's Sequential head.
def local_model_sequential_head(x, y):
    model = HeadNet()
    # expect: TL208
    return F.cross_entropy(model(x), y)


# Flagged: an nn.Softmax module called in the function.
def softmax_module_in_function(logits, y):
    sm = nn.Softmax(dim=1)
    # expect: TL208
    return F.cross_entropy(sm(logits), y)


# Flagged: reshaped probabilities are still probabilities.
def reshaped(logits, y, classes):
    probs = F.softmax(logits, dim=-1)
    # expect: TL208
    return F.cross_entropy(probs.view(-1, classes), y.view(-1))


# Flagged: the deprecated out-of-place Tensor.resize reshapes a model's
# probabilities as view does (an old ranking model's training loop).
def resized_model_output(x, y, choices):
    model = SoftmaxNet(choices)
    criterion = nn.CrossEntropyLoss()
    # expect: TL208
    return criterion(model(x).resize(1, choices), y)


# Flagged: a local function builds the model, whose last layer is a
# softmax; the step function gets the model and the criterion from the
# caller and calls both forwards directly (an old tutorial's layout).
def build_classifier(features, classes):
    net = nn.Sequential(nn.Linear(features, classes), nn.Softmax(dim=1))
    return net


def tutorial_step(model, loss, optimizer, x, y):
    optimizer.zero_grad()
    # expect: TL207
    fx = model.forward(x)
    # expect: TL208, TL207
    output = loss.forward(fx, y)
    output.backward()
    optimizer.step()
    return output.detach()


def tutorial_main(x, y):
    model = build_classifier(784, 10)
    loss = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(10):
        tutorial_step(model, loss, optimizer, x, y)


# Flagged: an empty nn.Sequential filled with add_module, the softmax added
# last (the older tutorials' way of building a logistic regression).
def added_layers(x, y):
    model = nn.Sequential()
    model.add_module("linear", nn.Linear(784, 10, bias=False))
    model.add_module("softmax", nn.Softmax(dim=1))
    criterion = nn.CrossEntropyLoss()
    # expect: TL208
    return criterion(model(x), y)


# Flagged: one element of a model's tuple output, whose head ends in nn.Softmax (the AC-GAN auxiliary loss).
def acgan_auxiliary_loss(imgs, labels):
    netD = AuxDiscriminator().to(device)
    auxiliary_loss = nn.CrossEntropyLoss()
    validity, pred_label, _ = netD(imgs)
    # expect: TL208
    return auxiliary_loss(pred_label, labels) + validity.mean()


# Flagged: the model is chosen by a flag among classes, one of which ends in
# a softmax: the configuration that builds it trains on probabilities.
def model_chosen_by_flag(x, y, kind):
    if kind == "probs":
        model = SoftmaxNet().to(device)
    else:
        model = LogSoftmaxNet().to(device)
    # expect: TL208
    return F.cross_entropy(model(x), y)


# Flagged: the layers gathered in a list, hidden blocks appended in a loop
# and the softmax appended last, then unpacked into an nn.Sequential.
def appended_layer_list(x, y, widths):
    layers = [nn.Flatten()]
    size = 784
    for width in widths:
        layers.append(nn.Linear(size, width))
        layers.append(nn.ReLU())
        size = width
    layers.append(nn.Linear(size, 10))
    layers.append(nn.Softmax(dim=1))
    model = nn.Sequential(*layers)
    # expect: TL208
    return F.cross_entropy(model(x), y)


# Flagged: a list display that ends in the softmax, extended onto a body.
def extended_layer_list(x, y):
    head = [nn.Linear(64, 10), nn.Softmax(dim=-1)]
    blocks = [nn.Linear(784, 64), nn.ReLU()]
    blocks.extend(head)
    criterion = nn.CrossEntropyLoss()
    # expect: TL208
    return criterion(nn.Sequential(*blocks)(x), y)


# Flagged: the class loss lives in a helper method; both training steps
# hand it the discriminator's probabilities (its auxiliary head's softmax).
class AuxGanSteps:
    def __init__(self):
        self.disc = AuxDiscriminator()

    def class_loss(self, scores, labels):
        # expect: TL208
        return F.cross_entropy(scores, labels)

    def real_step(self, imgs, labels):
        validity, probs, _ = self.disc(imgs)
        return validity.mean() + self.class_loss(probs, labels)

    def fake_step(self, fakes, labels):
        validity, probs, _ = self.disc(fakes)
        return -validity.mean() + self.class_loss(probs, labels)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the element of the same tuple output that holds logits.
def acgan_logits_element(imgs, labels):
    netD = AuxDiscriminator().to(device)
    validity, _, aux_logits = netD(imgs)
    # ok: TL208
    return F.cross_entropy(aux_logits, labels) + validity.mean()


# OK: the same resize of a model that returns logits.
def resized_logits(x, y, choices):
    model = nn.Linear(16, choices)
    criterion = nn.CrossEntropyLoss()
    # ok: TL208
    return criterion(model(x).resize(1, choices), y)


# OK: the same layout with a factory whose model ends in its last linear
# layer (logits); the softmax is only in the prediction helper.
def build_logit_classifier(features, classes):
    return nn.Sequential(nn.Linear(features, 64), nn.ReLU(), nn.Linear(64, classes))


def logit_step(model, loss, optimizer, x, y):
    optimizer.zero_grad()
    # ok: TL208
    # expect: TL207
    output = loss.forward(model.forward(x), y)
    output.backward()
    optimizer.step()
    return output.detach()


def logit_predict(model, x):
    return F.softmax(model(x), dim=1).argmax(1)


def logit_main(x, y):
    model = build_logit_classifier(784, 10)
    loss = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(10):
        logit_step(model, loss, optimizer, x, y)
    return logit_predict(model, x)


# OK: the softmax is added only when a flag asks for probabilities, and
# the last layer added on every path is the linear one otherwise.
def added_layers_on_some_paths(x, y, probabilities):
    model = nn.Sequential()
    model.add_module("linear", nn.Linear(784, 10))
    if probabilities:
        model.add_module("softmax", nn.Softmax(dim=1))
    criterion = nn.CrossEntropyLoss()
    # ok: TL208
    return criterion(model(x), y)


# OK: layers added with add_module, the last one a linear layer (logits).
def added_layers_logits(x, y):
    model = nn.Sequential()
    model.add_module("hidden", nn.Linear(784, 64))
    model.add_module("act", nn.ReLU())
    model.add_module("out", nn.Linear(64, 10))
    criterion = nn.CrossEntropyLoss()
    # ok: TL208
    return criterion(model(x), y)


# OK: the loss on logits; softmax only for the reported confidence.
def softmax_for_metrics(model, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        logits = model(x)
        probs = F.softmax(logits, dim=1)
        # ok: TL208
        loss = criterion(logits, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        # expect: TL304
        print(probs.max(1).values.mean().item())


# OK: soft targets from a teacher are probabilities by design (the second argument).
def soft_targets(student_logits, teacher_logits, t=2.0):
    # ok: TL208
    return F.cross_entropy(student_logits / t, F.softmax(teacher_logits / t, dim=-1))


# OK: a model that returns probabilities only outside training: its outputs do not all end in a softmax.
def probs_only_at_inference(x, y):
    model = ProbsAtInference()
    # ok: TL208
    return F.cross_entropy(model(x), y)


# OK: log-probabilities (log_softmax is idempotent under cross-entropy's own log-softmax).
def log_softmax_input(logits, y):
    # ok: TL208
    return F.cross_entropy(F.log_softmax(logits, dim=-1), y)


# OK: a model attribute named `softmax` that is a LogSoftmax.
def misnamed_log_softmax(x, y):
    model = LogSoftmaxNet()
    # ok: TL208
    return nn.CrossEntropyLoss()(model(x), y)


# OK: the log of the probabilities is a log-probability.
def log_of_probs(logits, y):
    probs = F.softmax(logits, dim=-1)
    # ok: TL208
    return F.cross_entropy(torch.log(probs + 1e-8), y)


# OK: a model that ends in a Linear layer returns logits.
def plain_model(x, y):
    model = nn.Sequential(nn.Flatten(), nn.Linear(784, 10))
    # ok: TL208
    return F.cross_entropy(model(x), y)


# OK: a softmax inside the model, followed by another layer.
def softmax_then_linear(x, y):
    model = nn.Sequential(nn.Linear(784, 10), nn.Softmax(dim=1), nn.Linear(10, 10))
    # ok: TL208
    return F.cross_entropy(model(x), y)


# OK: the same list, the softmax appended only for the prediction model;
# the trained one is unpacked before it (its last layer is the linear one).
def appended_softmax_after_training(x, y):
    layers = [nn.Flatten(), nn.Linear(784, 10)]
    trained = nn.Sequential(*layers)
    layers.append(nn.Softmax(dim=1))
    predictor = nn.Sequential(*layers)
    # ok: TL208
    loss = F.cross_entropy(trained(x), y)
    return loss, predictor(x).argmax(1)


# OK: the softmax appended last, then dropped with pop() or a slice
# before the list is unpacked: the model ends in logits.
def appended_then_dropped(x, y):
    layers = [nn.Flatten(), nn.Linear(784, 10)]
    layers.append(nn.Softmax(dim=1))
    layers.pop()
    # ok: TL208
    return F.cross_entropy(nn.Sequential(*layers)(x), y)


def appended_then_sliced(x, y):
    layers = [nn.Flatten(), nn.Linear(784, 10), nn.Softmax(dim=1)]
    # ok: TL208
    return F.cross_entropy(nn.Sequential(*layers[:-1])(x), y)


# OK: the softmax appended on some paths only (a flag asks for probabilities).
def appended_on_some_paths(x, y, probabilities):
    layers = [nn.Flatten(), nn.Linear(784, 10)]
    if probabilities:
        layers.append(nn.Softmax(dim=1))
    # ok: TL208
    return F.cross_entropy(nn.Sequential(*layers)(x), y)


# OK: the same helper method, every step hands it the discriminator's
# logits head.
class AuxGanLogitSteps:
    def __init__(self):
        self.disc = AuxDiscriminator()

    def class_loss(self, scores, labels):
        # ok: TL208
        return F.cross_entropy(scores, labels)

    def real_step(self, imgs, labels):
        validity, _, logits = self.disc(imgs)
        return validity.mean() + self.class_loss(logits, labels)

    def fake_step(self, fakes, labels):
        validity, _, logits = self.disc(fakes)
        return -validity.mean() + self.class_loss(logits, labels)


# OK: the callers disagree: one hands the helper probabilities, the other
# logits; the helper's loss is not on probabilities on every path.
class AuxGanMixedSteps:
    def __init__(self):
        self.disc = AuxDiscriminator()

    def class_loss(self, scores, labels):
        # ok: TL208
        return F.cross_entropy(scores, labels)

    def real_step(self, imgs, labels):
        _, probs, _ = self.disc(imgs)
        return self.class_loss(probs, labels)

    def fake_step(self, fakes, labels):
        _, _, logits = self.disc(fakes)
        return self.class_loss(logits, labels)


# OK: the list is handed to a helper after the softmax was appended; the
# helper may add layers after it (here it appends a linear layer).
def add_projection(layers):
    layers.append(nn.Linear(10, 10))


def appended_then_handed(x, y):
    layers = [nn.Flatten(), nn.Linear(784, 10)]
    layers.append(nn.Softmax(dim=1))
    add_projection(layers)
    # ok: TL208
    return F.cross_entropy(nn.Sequential(*layers)(x), y)

