"""TL203 eval-mode-not-restored: fixtures.

An `expect` annotation sits before a `.eval()` in a training loop (its
iteration runs a backward), or before the call of a local function that
makes one, when the module is being trained (an optimizer updates it, or the
file calls `.train()` on it) and nothing in the loop's iteration switches it
back to train mode: after the first evaluation, every step trains without
dropout and with frozen batch-norm statistics. An `ok` annotation sits
before evaluations that are undone in the iteration (directly or in a
training helper), modules that are never trained (a teacher, an EMA copy),
and evaluations outside training loops.
"""
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.BatchNorm1d(256), nn.ReLU(),
                                  nn.Dropout(0.3))
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.body(x))


class Generator(nn.Module):
    def __init__(self, nz=64):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Linear(256, 784))

    def forward(self, z):
        return self.main(z)


@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        correct += (model(x).argmax(1) == y).sum().item()
    return correct / len(loader.dataset)


@torch.no_grad()
def validate(net, loader):
    net.eval()
    return sum(nn.functional.cross_entropy(net(x), y).item() for x, y in loader)


def run_validation(model, loader, log):
    log.append(evaluate(model, loader))


def train_one_epoch(model, loader, optimizer):
    model.train()
    for x, y in loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()


def freeze_batchnorm(model):
    for m in model.modules():
        if isinstance(m, nn.BatchNorm1d):
            m.eval()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: validation inline in the epoch loop; the model is never put back in train mode.
def inline_validation(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # expect: TL203
        model.eval()
        with torch.no_grad():
            acc = sum((model(x).argmax(1) == y).float().mean().item() for x, y in val_loader)
        print(epoch, acc)


# Flagged: `evaluate()` switches to eval mode; the only `model.train()` is before the loop. Reported at the call.
def helper_validation_train_before_loop(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # expect: TL203
        acc = evaluate(model, val_loader)
        print(epoch, acc)


# Flagged: periodic evaluation inside the batch loop; `model.train()` runs once per epoch, so most steps of the
# epoch train in eval mode.
def periodic_eval_in_batch_loop(train_loader, val_loader, epochs, every=500):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        for step, (x, y) in enumerate(train_loader):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            if step % every == 0:
                # expect: TL203
                model.eval()
                with torch.no_grad():
                    print(step, evaluate_batchless(model, val_loader))


@torch.no_grad()
def evaluate_batchless(model, loader):
    return sum(model(x).sum().item() for x, _ in loader)


# Flagged: `model.train(False)` is eval mode too.
def train_false(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # expect: TL203
        model.train(False)
        print(evaluate_batchless(model, val_loader))


# Flagged: a trainer whose fit loop calls its own validation method, which switches the model to eval.
class Trainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.model.train()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        return sum(self.model(x).argmax(1).eq(y).sum().item() for x, y in loader)

    def fit(self, train_loader, val_loader, epochs):
        for epoch in range(epochs):
            for x, y in train_loader:
                self.optimizer.zero_grad()
                nn.functional.cross_entropy(self.model(x), y).backward()
                self.optimizer.step()
            # expect: TL203
            print(self.validate(val_loader))


# Flagged: the evaluation is two helpers deep (run_validation -> evaluate).
def two_helpers_deep(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    log = []
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # expect: TL203
        run_validation(model, val_loader, log)


# Flagged: the helper names its parameter differently (`net`); the argument is the trained model.
def helper_with_other_parameter_name(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # expect: TL203
        print(validate(model, val_loader))


# Flagged: a GAN samples with the generator in eval mode every N steps and never switches it back.
def gan_sampling_in_eval(loader, netD, nz=64, every=100):
    netG = Generator(nz).to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    for i, real in enumerate(loader):
        optG.zero_grad()
        fake = netG(torch.randn(real.size(0), nz, device=device))
        nn.functional.softplus(-netD(fake)).mean().backward()
        optG.step()
        if i % every == 0:
            # expect: TL203
            netG.eval()
            with torch.no_grad():
                samples = netG(torch.randn(64, nz, device=device))
            print(samples.shape)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the epoch loop calls a training helper that starts with `model.train()`: each epoch restores the mode.
def train_helper_restores(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer)
        # ok: TL203
        print(evaluate(model, val_loader))


# OK: evaluation followed by `model.train()` in the same iteration.
def eval_then_train(train_loader, val_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # ok: TL203
        model.eval()
        print(evaluate_batchless(model, val_loader))
        model.train()


# OK: periodic evaluation inside the batch loop, switched back right after.
def periodic_eval_restored(train_loader, val_loader, every=500):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model.train()
    for step, (x, y) in enumerate(train_loader):
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
        if step % every == 0:
            # ok: TL203
            evaluate(model, val_loader)
            model.train()


# OK: distillation: the teacher is put in eval mode every iteration, but nothing trains it.
def distillation(train_loader, teacher, temperature=2.0):
    student = Net().to(device)
    optimizer = torch.optim.AdamW(student.parameters(), lr=1e-3)
    for x, y in train_loader:
        # ok: TL203
        teacher.eval()
        with torch.no_grad():
            soft = (teacher(x) / temperature).softmax(-1)
        logits = student(x)
        loss = nn.functional.kl_div((logits / temperature).log_softmax(-1), soft, reduction="batchmean")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# OK: an EMA copy is evaluated in eval mode; it is updated by averaging, never trained.
def ema_evaluation(train_loader, val_loader, epochs, decay=0.999):
    model = Net().to(device)
    ema_model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
            with torch.no_grad():
                for pe, p in zip(ema_model.parameters(), model.parameters()):
                    pe.mul_(decay).add_(p, alpha=1 - decay)
        # ok: TL203
        ema_model.eval()
        print(evaluate_batchless(ema_model, val_loader))


# OK: the torchvision-style phase loop: `model.train(phase == "train")` switches back for the training phase.
def phase_loop(loaders, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        for phase in ["train", "val"]:
            model.train(phase == "train")
            for x, y in loaders[phase]:
                with torch.set_grad_enabled(phase == "train"):
                    loss = nn.functional.cross_entropy(model(x), y)
                if phase == "train":
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
        # ok: TL203
        model.eval()


# OK: freezing batch-norm statistics on purpose: the submodules put in eval are the helper's own loop targets.
def frozen_batchnorm_finetune(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(epochs):
        model.train()
        # ok: TL203
        freeze_batchnorm(model)
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()


# OK: the wrapper is switched back to train mode, which switches the wrapped module too.
def ddp_wrapper_restores(train_loader, val_loader, epochs, rank):
    net = Net().to(rank)
    model = DDP(net, device_ids=[rank])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # ok: TL203
        net.eval()
        print(evaluate_batchless(net, val_loader))


# OK: evaluation after the training loop has ended.
def evaluate_at_the_end(train_loader, val_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in train_loader:
        optimizer.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        optimizer.step()
    # ok: TL203
    model.eval()
    return evaluate_batchless(model, val_loader)


# OK: an adversarial evaluation loop backpropagates to its inputs but steps no optimizer: no training loop.
def fgsm_evaluation(model, test_loader, eps=0.03):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    correct = 0
    for x, y in test_loader:
        # ok: TL203
        model.eval()
        x.requires_grad_(True)
        nn.functional.cross_entropy(model(x), y).backward()
        x_adv = (x + eps * x.grad.sign()).detach()
        with torch.no_grad():
            # expect: TL304
            correct += (model(x_adv).argmax(1) == y).sum().item()
    return correct, optimizer


# OK: a loop over checkpoints that only evaluates: no backward, no training loop.
def compare_checkpoints(paths, val_loader):
    model = Net().to(device)
    scores = []
    for path in paths:
        # expect: TL105
        model.load_state_dict(torch.load(path, weights_only=True))
        # ok: TL203
        model.eval()
        scores.append(evaluate_batchless(model, val_loader))
    return scores


# OK: a latent-diffusion loop. The autoencoder was trained before; here it is
# frozen and only encodes the inputs, so eval mode is what the loop wants.
# The denoiser it trains is switched to eval for sampling and not back:
# that one is reported.
def train_latent_denoiser(train_loader, epochs):
    autoencoder = Net().to(device)
    ae_opt = torch.optim.Adam(autoencoder.parameters(), lr=1e-3)
    for x, _ in train_loader:
        ae_opt.zero_grad()
        nn.functional.mse_loss(autoencoder(x), x).backward()
        ae_opt.step()
    denoiser = Net().to(device)
    opt = torch.optim.Adam(denoiser.parameters(), lr=1e-4)
    for epoch in range(epochs):
        for x, _ in train_loader:
            # ok: TL203
            autoencoder.eval()
            with torch.no_grad():
                z = autoencoder(x)
            opt.zero_grad()
            nn.functional.mse_loss(denoiser(z + torch.randn_like(z)), z).backward()
            opt.step()
        # expect: TL203
        denoiser.eval()
        with torch.no_grad():
            denoiser(torch.randn(4, 10, device=device))


# A model the function is given and trains with an optimizer it builds over
# the model's parameters: in train mode until the evaluation switches it.
def fit_given(model, train_loader, val_loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # expect: TL203
        score_model(model, val_loader)


def fit_given_restored(model, train_loader, val_loader, epochs):
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
        # ok: TL203
        score_model(model, val_loader)


# The optimizer updates the head only: the backbone it is given stays frozen
# in eval mode on purpose.
def fit_head(backbone, head, train_loader, val_loader, epochs):
    optimizer = torch.optim.SGD(head.parameters(), lr=0.1)
    head.train()
    for epoch in range(epochs):
        for x, y in train_loader:
            optimizer.zero_grad()
            nn.functional.cross_entropy(head(backbone(x)), y).backward()
            optimizer.step()
        # ok: TL203
        score_model(backbone, val_loader)


def score_model(net, loader):
    net.eval()
    with torch.no_grad():
        return sum((net(x).argmax(1) == y).sum().item() for x, y in loader)


# OK: a model known to hold no dropout, batch norm or other layer that acts
# differently in eval mode trains the same after `.eval()`: nothing to
# restore. The same loop over a model with dropout, or over a model built
# from a module handed in (whose layers are not known), is flagged.
class PlainMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, 1))

    def forward(self, x):
        return self.layers(x)


class DropMLP(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(width, width), nn.Dropout(0.2), nn.Linear(width, 1))

    def forward(self, x):
        return self.layers(x)


class Headed(nn.Module):
    def __init__(self, backbone, width):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Linear(width, 1)

    def forward(self, x):
        return self.head(self.backbone(x))


def peek(model, batch):
    model.eval()
    with torch.no_grad():
        return model(batch).mean().item()


def fit_plain(train_loader, probe_batch, backbone):
    plain = PlainMLP(16)
    drop = DropMLP(16)
    headed = Headed(backbone, 16)
    opt = torch.optim.SGD([*plain.parameters(), *drop.parameters(), *headed.parameters()], lr=0.1)
    for step, (x, y) in enumerate(train_loader):
        loss = (plain(x) - y).pow(2).mean() + (drop(x) - y).pow(2).mean() + (headed(x) - y).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            # ok: TL203
            peek(plain, probe_batch)
            # expect: TL203
            peek(drop, probe_batch)
            # expect: TL203
            peek(headed, probe_batch)
