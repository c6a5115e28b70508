"""TL102 eval-without-no-grad: fixtures.

An `expect` annotation sits before each model call that runs after `.eval()`
with gradient tracking on (no no_grad / inference_mode /
set_grad_enabled(False), no decorator, and not every call site of the function
inside such a context). An `ok` annotation sits before model calls that only
look unguarded: the guard is a decorator, an alias, an import alias, a context
around the call site, or the forward feeds a backward on purpose. Stored
results use `.item()` so that TL101 stays out of the picture unless a case
says otherwise.
"""
import copy
from contextlib import nullcontext

import torch
import torch as T
import torchvision
from torch import nn, no_grad, inference_mode
from transformers import AutoModelForSequenceClassification
from captum.attr import IntegratedGradients

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
grad_off = torch.no_grad
frozen = torch.no_grad()


class Net(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(self.dropout(self.features(x)))


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the classic evaluate(): model.eval() switches dropout/BN but does not stop graph building.
def evaluate_plain(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        logits = model(x)
        correct += (logits.argmax(dim=1) == y).sum().item()
    return correct / len(val_loader.dataset)


# Flagged: a model bound in the function from a local nn.Module class, loaded and evaluated with gradients on.
def evaluate_checkpoint(path, test_loader):
    model = Net().to(device)
    model.load_state_dict(torch.load(path, map_location=device, weights_only=True))
    model.eval()
    total = 0
    for x, y in test_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        out = model(x)
        total += (out.argmax(1) == y).sum().item()
    return total


# Flagged twice: test-time augmentation runs two forwards, each with gradients on.
def evaluate_flip_tta(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        plain = model(x)
        # expect: TL102
        flipped = model(torch.flip(x, dims=[3]))
        probs = (plain.softmax(-1) + flipped.softmax(-1)) / 2
        correct += (probs.argmax(-1) == y).sum().item()
    return correct


# Flagged: the model is a `self.` attribute bound in __init__ and evaluated in a method without a guard.
class Evaluator:
    def __init__(self, num_classes=10):
        self.model = Net(num_classes).to(device)
        self.criterion = nn.CrossEntropyLoss()

    def run(self, loader):
        self.model.eval()
        loss_sum = 0.0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            # expect: TL102
            logits = self.model(x)
            loss_sum += self.criterion(logits, y).item()
        return loss_sum / len(loader)


# Flagged: Hugging Face style `model(**batch)` after model.eval(), gradients on.
def evaluate_hf(eval_dataloader):
    model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased").to(device)
    model.eval()
    losses = 0.0
    for batch in eval_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        # expect: TL102
        outputs = model(**batch)
        losses += outputs.loss.item()
    return losses / len(eval_dataloader)


# Flagged: autocast changes dtypes, it does not disable gradients.
def evaluate_under_autocast_only(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast("cuda", dtype=torch.float16):
            # expect: TL102
            logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# Flagged: the first forward is guarded, the second one sits after the no_grad block has ended.
def guard_ends_too_early(model, val_loader):
    model.eval()
    agree = 0
    for x, _ in val_loader:
        x = x.to(device)
        with torch.no_grad():
            # ok: TL102
            a = model(x)
        # expect: TL102
        b = model(x + 0.01 * torch.randn_like(x))
        agree += (a.argmax(1) == b.argmax(1)).sum().item()
    return agree


# Flagged: evaluate_mixed_callers is called once under no_grad and once without; not all call sites are guarded.
def evaluate_mixed_callers(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


def report_both_splits(model, val_loader, test_loader):
    with torch.no_grad():
        val_acc = evaluate_mixed_callers(model, val_loader)
    test_acc = evaluate_mixed_callers(model, test_loader)
    return val_acc, test_acc


# Flagged: validation inside the epoch loop of a training script, with no guard (training resumes with model.train()).
def fit_with_unguarded_validation(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        model.eval()
        val_loss = 0.0
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # expect: TL102
            out = model(x)
            val_loss += criterion(out, y).item()
        print(epoch, val_loss / len(val_loader))


# Flagged: only the argmax of the forward is used, so nothing reaches a backward.
def predict_labels(model, test_loader):
    model.eval()
    labels = []
    for x, _ in test_loader:
        x = x.to(device)
        # expect: TL102
        preds = model(x).argmax(dim=1)
        labels.extend(preds.tolist())
    return labels


# Flagged: a bare nn.Sequential (known module via `from torch import nn`) evaluated unguarded.
def evaluate_sequential_probe(feature_loader):
    probe = nn.Sequential(nn.Linear(512, 128), nn.ReLU(), nn.Linear(128, 10)).to(device)
    probe.eval()
    hits = 0
    for feats, y in feature_loader:
        feats, y = feats.to(device), y.to(device)
        # expect: TL102
        hits += (probe(feats).argmax(1) == y).sum().item()
    return hits


# Flagged: `model.train(False)` is the same switch as `model.eval()`.
def evaluate_train_false(model, val_loader):
    model.train(False)
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# Flagged on one line twice: the unguarded forward (TL102) is stored in a list that outlives the loop (TL101).
def collect_eval_outputs(model, val_loader):
    model.eval()
    outputs = []
    for x, _ in val_loader:
        x = x.to(device)
        # expect: TL106, TL102
        outputs.append(model(x))
    return torch.cat(outputs)


# Flagged: `import torch as T` and T.autocast; still no grad-disabled context.
def evaluate_torch_alias(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        with T.autocast("cuda", dtype=T.bfloat16):
            # expect: TL102
            logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# Flagged: the evaluation function is reached through a helper whose own call site is unguarded.
def evaluate_via_helper(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


def run_validation_unguarded(model, loader):
    return evaluate_via_helper(model, loader)


def epoch_end_hook(model, loader, epoch):
    acc = run_validation_unguarded(model, loader)
    print(epoch, acc)


# Flagged: an EMA copy put in eval mode and evaluated without a guard.
def evaluate_ema_copy(model, val_loader):
    ema_model = copy.deepcopy(model)
    ema_model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        logits = ema_model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# Flagged: a torchvision constructor binds a known module; evaluated with gradients on.
def evaluate_torchvision_resnet(test_loader):
    model = torchvision.models.resnet18(weights=None, num_classes=10).to(device)
    model.eval()
    correct = 0
    for x, y in test_loader:
        x, y = x.to(device), y.to(device)
        # expect: TL102
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


# Todo: a frozen teacher in eval mode whose outputs feed the distillation loss. The forward builds a graph and the
# backward fills teacher .grad, which is waste, but the result does reach a backward, which RULES.md exempts.
def distill_with_unguarded_teacher(teacher, train_loader, temperature=4.0):
    student = Net().to(device)
    optimizer = torch.optim.AdamW(student.parameters(), lr=1e-3)
    kl = nn.KLDivLoss(reduction="batchmean")
    teacher.eval()
    student.train()
    for x, _ in train_loader:
        x = x.to(device)
        optimizer.zero_grad()
        # todo-expect: TL102
        t_logits = teacher(x)
        s_logits = student(x)
        loss = kl((s_logits / temperature).log_softmax(-1), (t_logits / temperature).softmax(-1))
        loss.backward()
        optimizer.step()


# Flagged: the same shape, but the caller hands a context that keeps
# gradients on.
def evaluate_in_caller_context(model, loader, grad_ctx):
    model.eval()
    correct = 0
    for x, y in loader:
        with grad_ctx():
            # expect: TL102
            out = model(x)
        correct += (out.argmax(1) == y).sum().item()
    model.train()
    return correct


def fit_then_evaluate_plain(model, loader, val_loader, opt):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return evaluate_in_caller_context(model, val_loader, nullcontext)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the standard form, `with torch.no_grad():` around the evaluation loop.
def evaluate_with_no_grad(model, val_loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            logits = model(x)
            correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: the grad context arrives as a parameter, and the one caller hands it
# torch.no_grad: the evaluation runs without a graph.
def evaluate_in_given_context(model, loader, grad_ctx):
    model.eval()
    correct = 0
    for x, y in loader:
        with grad_ctx():
            # ok: TL102
            out = model(x)
        correct += (out.argmax(1) == y).sum().item()
    model.train()
    return correct


def fit_then_evaluate(model, loader, val_loader, opt):
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
    return evaluate_in_given_context(model, val_loader, torch.no_grad)


# OK: `@torch.no_grad()` on the function disables gradients for its whole body.
@torch.no_grad()
def evaluate_decorated_no_grad(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # ok: TL102
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


# OK: `@torch.inference_mode()` on the function.
@torch.inference_mode()
def evaluate_decorated_inference_mode(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # ok: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: `frozen = torch.no_grad()` at module level, applied as a decorator through the alias.
@frozen
def evaluate_alias_decorator(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # ok: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: the function has no guard of its own, but its only call site is inside `with torch.no_grad():`.
def evaluate_guarded_at_call_site(model, val_loader):
    model.eval()
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # ok: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


def fit_and_validate(model, train_loader, val_loader, optimizer, criterion, epochs):
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            acc = evaluate_guarded_at_call_site(model, val_loader)
        print(epoch, acc)


# OK: transitively guarded: the only caller is itself decorated with `@torch.inference_mode()`.
def evaluate_inner(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    return correct


@torch.inference_mode()
def validate_all_splits(model, loaders):
    return {name: evaluate_inner(model, loader) for name, loader in loaders.items()}


# OK: `with torch.set_grad_enabled(False):` is a grad-disabled context.
def evaluate_set_grad_enabled_false(model, val_loader):
    model.eval()
    correct = 0
    with torch.set_grad_enabled(False):
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            logits = model(x)
            correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: the transfer-learning tutorial pattern: `set_grad_enabled(phase == "train")` is off in the "val" phase and
# the "train" phase forward reaches a backward.
def train_val_phases(model, dataloaders, criterion, optimizer, epochs):
    for epoch in range(epochs):
        for phase in ["train", "val"]:
            if phase == "train":
                model.train()
            else:
                model.eval()
            running_loss = 0.0
            for inputs, labels in dataloaders[phase]:
                inputs, labels = inputs.to(device), labels.to(device)
                optimizer.zero_grad()
                with torch.set_grad_enabled(phase == "train"):
                    # ok: TL102
                    outputs = model(inputs)
                    loss = criterion(outputs, labels)
                    if phase == "train":
                        loss.backward()
                        optimizer.step()
                # expect: TL304
                running_loss += loss.item() * inputs.size(0)
            print(epoch, phase, running_loss / len(dataloaders[phase].dataset))


# OK: `from torch import no_grad, inference_mode` import aliases.
def evaluate_imported_names(model, val_loader, test_loader):
    model.eval()
    correct = 0
    with no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            correct += (model(x).argmax(1) == y).sum().item()
    with inference_mode():
        for x, y in test_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            correct += (model(x).argmax(1) == y).sum().item()
    return correct


# OK: `import torch as T`, `with T.no_grad():`.
def evaluate_torch_alias_guarded(model, val_loader):
    model.eval()
    correct = 0
    with T.no_grad():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            logits = model(x)
            correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: no_grad and autocast combined in one `with` statement.
def evaluate_no_grad_and_autocast(model, val_loader):
    model.eval()
    correct = 0
    with torch.no_grad(), torch.autocast("cuda", dtype=torch.bfloat16):
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            logits = model(x)
            correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: an adversarial example (FGSM) is built in eval mode; the forward must track gradients because it reaches a backward.
def fgsm_examples(model, loader, criterion, eps=8 / 255):
    model.eval()
    adversarial = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        x = x.clone().requires_grad_(True)
        # ok: TL102
        loss = criterion(model(x), y)
        loss.backward()
        adversarial.append((x + eps * x.grad.sign()).clamp(0, 1).detach())
    return adversarial


# OK: a quick guarded check in eval mode, then back to model.train(); the later forward is a training forward.
def sanity_check_then_train(model, train_loader, optimizer, criterion):
    model.eval()
    with torch.no_grad():
        first_x, _ = next(iter(train_loader))
        # ok: TL102
        print("initial logits", model(first_x.to(device)).mean().item())
    model.train()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        # ok: TL102
        loss = criterion(model(x), y)
        loss.backward()
        optimizer.step()


# OK: a method decorated with `@torch.no_grad()` evaluating a `self.` model.
class GuardedEvaluator:
    def __init__(self):
        self.model = Net().to(device)

    @torch.no_grad()
    def run(self, loader):
        self.model.eval()
        correct = 0
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            logits = self.model(x)
            correct += (logits.argmax(1) == y).sum().item()
        return correct


# OK: the function-call form `torch.set_grad_enabled(False)` turns gradients off until it is switched back on.
def evaluate_global_switch(model, val_loader):
    model.eval()
    torch.set_grad_enabled(False)
    correct = 0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        # ok: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    torch.set_grad_enabled(True)
    return correct


# OK: `grad_off = torch.no_grad` (the class) aliased at module level and entered as `with grad_off():`.
def evaluate_class_alias(model, val_loader):
    model.eval()
    correct = 0
    with grad_off():
        for x, y in val_loader:
            x, y = x.to(device), y.to(device)
            # ok: TL102
            logits = model(x)
            correct += (logits.argmax(1) == y).sum().item()
    return correct


# OK: Hugging Face evaluation loop with the forward under no_grad; reading `outputs.loss` after the block is fine.
def evaluate_hf_guarded(eval_dataloader):
    model = AutoModelForSequenceClassification.from_pretrained("distilbert-base-uncased").to(device)
    model.eval()
    losses = []
    for batch in eval_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.no_grad():
            # ok: TL102
            outputs = model(**batch)
        losses.append(outputs.loss.item())
    return sum(losses) / len(losses)


# OK: autoregressive sampling under `@torch.no_grad()`; the model is called once per generated token.
@torch.no_grad()
def sample_tokens(model, idx, max_new_tokens, block_size=256):
    model.eval()
    for _ in range(max_new_tokens):
        idx_cond = idx[:, -block_size:]
        # ok: TL102
        logits = model(idx_cond)[:, -1, :]
        next_token = torch.multinomial(logits.softmax(-1), num_samples=1)
        idx = torch.cat([idx, next_token], dim=1)
    return idx


# OK (issue 22, ecosystem): a decorator factory of the file that wraps the
# function in inference mode (no_grad on an old PyTorch).
def inference_decorator(new_torch=True):
    def decorate(fn):
        return (torch.inference_mode if new_torch else torch.no_grad)()(fn)

    return decorate


@inference_decorator()
def validate_decorated(model, loader):
    model.eval()
    for x, _ in loader:
        # ok: TL102
        model(x)


# A decorator factory whose decorator wraps in nothing grad-related.
def timed():
    def decorate(fn):
        return fn

    return decorate


@timed()
def validate_timed(model, loader):
    model.eval()
    for x, _ in loader:
        # expect: TL102
        model(x)


# A module without parameters on inputs that require no grad records no
# graph: a unit test that checks dropout is off in eval mode. The same layers
# on anything else, or a module that holds parameters, still do.
class DropPathLike(torch.nn.Module):
    def __init__(self, p=0.1, scale=True):
        super().__init__()
        self.p = p
        self.scale = scale

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        keep = torch.rand(x.shape[0], 1, device=x.device) >= self.p
        return x * keep / (1 - self.p if self.scale else 1.0)


class ScaledDropPath(torch.nn.Module):
    def __init__(self, p=0.1):
        super().__init__()
        self.p = p
        self.gamma = torch.nn.Parameter(torch.ones(1))

    def forward(self, x):
        return self.gamma * x


def test_droppath_off_in_eval():
    layer = DropPathLike(p=0.5)
    layer.eval()
    x = torch.ones(4, 8)
    # ok: TL102
    out = layer(x)
    assert torch.equal(out, x)


def test_dropout_off_in_eval():
    drop = torch.nn.Dropout(0.3)
    drop.eval()
    # ok: TL102
    assert torch.equal(drop(torch.full((2, 3), 2.0)), torch.full((2, 3), 2.0))


def test_droppath_grad_input():
    layer = DropPathLike(p=0.5)
    layer.eval()
    x = torch.ones(4, 8, requires_grad=True)
    # expect: TL102
    out = layer(x)
    assert out.shape == x.shape


def test_droppath_input_set_to_require_grad():
    layer = DropPathLike(p=0.5)
    layer.eval()
    x = torch.ones(4, 8)
    x.requires_grad_()
    # expect: TL102
    layer(x)


def test_scaled_droppath_holds_a_parameter():
    layer = ScaledDropPath(p=0.5)
    layer.eval()
    x = torch.ones(4, 8)
    # expect: TL102
    layer(x)


def eval_head(backbone, loader):
    drop = torch.nn.Dropout(0.3)
    backbone.eval()
    drop.eval()
    for x, _ in loader:
        # expect: TL102
        feats = backbone(x)
        # expect: TL102
        drop(feats).mean().item()


# A forward whose output torch.autograd.grad differentiates needs its graph:
# classifier guidance in a sampler, an input saliency map.
def guided_step(classifier, img, target, scale):
    classifier.eval()
    with torch.enable_grad():
        x_in = img.detach().requires_grad_(True)
        # ok: TL102
        logits = classifier(x_in)
        picked = torch.log_softmax(logits, dim=-1)[range(len(logits)), target]
        grad = torch.autograd.grad(picked.sum(), x_in)[0]
    return img + scale * grad


def saliency_map(model, images):
    model.eval()
    x = images.clone().requires_grad_(True)
    # ok: TL102
    score = model(x).max(1).values.sum()
    (grad,) = torch.autograd.grad(score, x)
    return grad.abs()


# The gradient taken is of something else: the forward's graph is unused.
def saliency_then_score(model, images, probe):
    model.eval()
    x = images.clone().requires_grad_(True)
    (grad,) = torch.autograd.grad(probe(x).sum(), x)
    # expect: TL102
    score = model(images).softmax(1)
    return grad, score.argmax(1).tolist()


# The legacy typed constructors on literal data make leaves that never
# require grad (they take no requires_grad): a parameter-free layer on them
# records nothing. On a tensor argument they may alias one that does.
def test_residual_scaling_in_eval():
    layer = DropPathLike(p=0.2)
    layer.eval()
    x = torch.FloatTensor([[2, 1], [-3, -2]])
    # ok: TL102
    out = layer(x).data.numpy()
    assert out.shape == (2, 2)


def test_residual_scaling_of_features(features):
    layer = DropPathLike(p=0.2)
    layer.eval()
    x = torch.FloatTensor(features)
    # expect: TL102
    layer(x)


# What requires grad, from the model: a factory's tensor made without
# requires_grad and what arithmetic and tensor methods compute from it do
# not; a class whose stores hold only buffers, numbers, plain parameters of
# its constructor and parameter-free layers holds no parameters; neither does
# an embedding built from a table (frozen by default) nor a layer after
# `.requires_grad_(False)`. A forward of such a module on such inputs records
# nothing. A parameter set to require grad, a layer that holds parameters, a
# store that gives the instance one, or an input that takes history from a
# parameter in place keeps the finding.
from math import log as _log

_NAT = _log(2)


class BitMapper(torch.nn.Module):
    def __init__(self, bits=1, threshold=_NAT):
        super().__init__()
        self.bits = bits
        self.num_codes = 2 ** bits
        self.threshold = threshold
        self.pool = torch.nn.AvgPool1d(3)
        self.register_buffer("codes", torch.arange(2 ** bits))

    def forward(self, logits):
        return self.pool(logits) - self.threshold


class BitMapperWithHead(torch.nn.Module):
    def __init__(self, bits=1):
        super().__init__()
        self.bits = bits
        self.head = torch.nn.Linear(bits, bits)

    def forward(self, logits):
        return self.head(logits)


def test_bit_mapper_deterministic_in_eval():
    mapper = BitMapper(bits=8)
    logits = torch.randn(3, 4, 8).float() * 2.0
    mapper.eval()
    # ok: TL102
    first = mapper(logits)
    # ok: TL102
    second = mapper(logits.view(3, 4, 8))
    assert torch.allclose(first, second)


def test_traced_mapper_in_eval():
    traced = torch.fx.symbolic_trace(BitMapper(bits=4))
    traced.eval()
    # ok: TL102
    assert traced(torch.randn(2, 4, 4)).shape[0] == 2


def test_frozen_embedding_lookup():
    emb = torch.nn.Embedding.from_pretrained(torch.randn(10, 4))
    emb.eval()
    # ok: TL102
    assert emb(torch.tensor([[1, 2]])).shape == (1, 2, 4)


def test_linear_frozen_in_place():
    net = torch.nn.Linear(4, 2)
    net.requires_grad_(False)
    net.eval()
    # ok: TL102
    assert net(torch.randn(1, 4)).shape == (1, 2)


def test_bit_mapper_input_requires_grad():
    mapper = BitMapper(bits=8)
    mapper.eval()
    logits = torch.randn(3, 4, 8)
    logits.requires_grad = True
    # expect: TL102
    mapper(logits)


def test_bit_mapper_with_a_head():
    mapper = BitMapperWithHead(bits=8)
    mapper.eval()
    # expect: TL102
    mapper(torch.randn(3, 8))


def test_bit_mapper_given_a_head():
    mapper = BitMapper(bits=8)
    mapper.head = torch.nn.Linear(8, 8)
    mapper.eval()
    # expect: TL102
    mapper(torch.randn(3, 4, 8))


def test_trainable_embedding_lookup():
    emb = torch.nn.Embedding.from_pretrained(torch.randn(10, 4), freeze=False)
    emb.eval()
    # expect: TL102
    emb(torch.tensor([[1, 2]]))


def test_bit_mapper_on_shifted_input():
    mapper = BitMapper(bits=8)
    mapper.eval()
    shift = torch.nn.Parameter(torch.zeros(3, 4, 8))
    logits = torch.randn(3, 4, 8)
    logits.add_(shift)
    # expect: TL102
    mapper(logits)


def test_bit_mapper_on_patched_input():
    mapper = BitMapper(bits=8)
    mapper.eval()
    shift = torch.nn.Parameter(torch.zeros(4, 8))
    logits = torch.randn(3, 4, 8)
    logits[0] = shift
    # expect: TL102
    mapper(logits)


def test_bit_mapper_given_a_layer_by_name():
    mapper = BitMapper(bits=8)
    setattr(mapper, "head", torch.nn.Linear(8, 8))
    mapper.eval()
    # expect: TL102
    mapper(torch.randn(3, 4, 8))


# OK (ecosystem): a decorator of the file that wraps the call in no_grad
# inside the function it returns (`def nograd(f): def new_f(...): with
# no_grad(): return f(...)`): the decorated method runs grad-disabled.
def nograd(f):
    def new_f(*args, **kwargs):
        with torch.no_grad():
            return f(*args, **kwargs)

    return new_f


# The same shape of decorator, wrapping the call in nothing grad-related.
def logged(f):
    def new_f(*args, **kwargs):
        print("calling", f.__name__)
        return f(*args, **kwargs)

    return new_f


@nograd
def predict_wrapped(model, images):
    model.eval()
    # ok: TL102
    return model(images).argmax(1).tolist()


@logged
def predict_logged(model, images):
    model.eval()
    # expect: TL102
    return model(images).argmax(1).tolist()


# `torch.enable_grad()` inside a no_grad block turns gradients back on: the
# forward of the eval-mode model in it records (and nothing backpropagates).
def probe_with_grad_inside_no_grad(model, images):
    model.eval()
    with torch.no_grad():
        # ok: TL102
        base = model(images).argmax(1).tolist()
        with torch.enable_grad():
            # expect: TL102
            again = model(images).argmax(1).tolist()
    return base, again


# `torch.set_grad_enabled(False)` on one branch only: the forward after the
# `if` runs with gradients on when the branch was not taken.
def evaluate_switch_on_one_branch(model, val_loader, fast):
    model.eval()
    if fast:
        torch.set_grad_enabled(False)
    correct = 0
    for x, y in val_loader:
        # expect: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    torch.set_grad_enabled(True)
    return correct


# ... and on both branches: off on every path.
def evaluate_switch_on_both_branches(model, val_loader, fast):
    model.eval()
    if fast:
        torch.set_grad_enabled(False)
    else:
        torch.set_grad_enabled(False)
    correct = 0
    for x, y in val_loader:
        # ok: TL102
        logits = model(x)
        correct += (logits.argmax(1) == y).sum().item()
    torch.set_grad_enabled(True)
    return correct


# The model's module modes: a module a helper returns in eval mode
# (`Net().to(device).eval()`: the model follows it, TL102 does not read it
# yet), a model built by a class the file cannot see (`model_class(config)`,
# a parameter) then put in eval mode, and a model's own method that switches
# it to eval mode before its forward.
def make_eval_model(device):
    return nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1)).to(device).eval()


def outputs_of_helper_model(x, device):
    model = make_eval_model(device)
    # expect: TL102
    return model(x).sum().item()


def outputs_of_helper_model_guarded(x, device):
    model = make_eval_model(device)
    with torch.no_grad():
        # ok: TL102
        return model(x).sum().item()


def outputs_of_unknown_class(model_class, config, x):
    model = model_class(config)
    model.to("cuda")
    model.eval()
    # expect: TL102
    return model(x).sum().item()


class SelfEvaluating(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))

    def forward(self, x):
        return self.body(x)

    def predict(self, x):
        self.eval()
        # expect: TL102
        out = self(x)
        self.train()
        return out.argmax(1).tolist()

    def predict_in_train_mode(self, x):
        # its callers' mode: judged where the model runs
        # ok: TL102
        return self(x).argmax(1).tolist()


# Not: a forward a test expects to raise (no graph outlives it), and a
# forward in a lambda handed to a library function, which runs it in the
# grad mode it chooses.
def check_bad_input_raises(x, pytest):
    model = make_eval_model("cpu")
    with pytest.raises(ValueError):
        # ok: TL102
        model(x)


def calibrate(model, run_model):
    with torch.no_grad():
        run_model()


def calibrate_with_lambda(x):
    model = make_eval_model("cpu")
    calibrate(model, run_model=lambda: model(x))


# A global model in eval mode read by a helper that is both called directly
# and called by a forward function that an attribution method differentiates:
# the finding goes to the direct call, not into the helper.
attr_model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
attr_model.eval()


def attr_predict(inputs):
    # ok: TL102
    return attr_model(inputs)


def attr_forward_func(inputs):
    return attr_predict(inputs).max(1).values


attr_inputs = torch.randn(4, 8)
# expect: TL102
attr_scores = attr_predict(attr_inputs).argmax(1).tolist()
attr_ig = IntegratedGradients(attr_forward_func)
attributions = attr_ig.attribute(attr_inputs)


# A base class calls a hook on `self` and differentiates what it returns
# (an attack's gradient step); a subclass overrides the hook and runs the
# model in eval mode there. The override's forward feeds the base's
# backward: it must record the graph.
class GradientAttack:
    def __init__(self, model):
        self.model = model

    def step(self, x, labels):
        x = x.clone().requires_grad_(True)
        loss = torch.nn.functional.cross_entropy(self.predict(x), labels)
        return torch.autograd.grad(loss, x)[0]

    def predict(self, x):
        return self.model(x)


class FrozenModelAttack(GradientAttack):
    def predict(self, x):
        self.model.eval()
        # ok: TL102
        return self.model(x)


# The same shape, but the base only reads the hook's result.
class Reporter:
    def __init__(self, model):
        self.model = model

    def labels(self, x):
        return self.outputs(x).argmax(dim=1).tolist()

    def outputs(self, x):
        return self.model(x)


class EvalReporter(Reporter):
    def outputs(self, x):
        self.model.eval()
        # expect: TL102
        return self.model(x)


# OK: `.numpy()` raises on a tensor that requires grad, so a test that
# calls it on the forward's result (directly, or through `.cpu()` and an
# index, which keep the result's history) runs only where no graph is
# recorded: the module it builds from a factory holds nothing trainable.
def check_export_matches(factory):
    x = torch.randn(2, 3, 32, 32)
    aug = factory()
    aug.eval()
    # ok: TL102
    eager = aug(x).numpy()
    # ok: TL102
    first = aug(x).cpu()[0].numpy()
    return eager, first


# Flagged: `.detach()` first, so the result may well have required grad.
def export_detached(factory):
    x = torch.randn(2, 3, 32, 32)
    aug = factory()
    aug.eval()
    # expect: TL102
    return aug(x).detach().numpy()


# Flagged: `.numpy(force=True)` detaches instead of raising, so it says
# nothing of whether the forward recorded a graph.
def export_forced(factory):
    x = torch.randn(2, 3, 32, 32)
    aug = factory()
    aug.eval()
    # expect: TL102
    return aug(x).numpy(force=True)
