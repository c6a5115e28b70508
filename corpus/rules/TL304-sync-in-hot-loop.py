"""TL304 sync-in-hot-loop (opt-in): fixtures.

An `expect` annotation sits before a host read of a device tensor
(`.item()`, `.cpu()`, `.tolist()`, `float(t)`, `print(t)`, also inside an
f-string) on every step of a training loop, in the loop itself or in a
helper it calls. An `ok` annotation sits before reads that are not per
training step: under `if step % N == 0:` (and its variants, also as an
early `continue`, or around the call of a helper), once per epoch, in
evaluation loops, and of host tensors.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self, in_features=32, num_classes=10):
        super().__init__()
        self.fc = nn.Linear(in_features, num_classes)

    def forward(self, x):
        return self.fc(x)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the classic running loss, read on every step.
def running_loss_item(model, loader, opt):
    model.train()
    running = 0.0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        running += loss.item()
    return running


# Flagged: accuracy counted on the host every step.
def accuracy_every_step(model, loader, opt):
    model.train()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        correct += (logits.argmax(1) == y).sum().item()
    return correct


# Flagged: `float(loss)` syncs as well.
def float_of_loss(model, loader, opt, history):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        history.append(float(loss))


# Flagged: printing a device tensor formats it on the host.
def print_loss_tensor(model, loader, opt):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        print("loss", loss)


# Flagged: an f-string interpolation of a device tensor is a print of it.
def print_fstring(model, loader, opt):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        print(f"loss {loss:.4f}")


# Flagged: `.cpu()` and `.tolist()` on model outputs in the training loop.
def predictions_to_host(model, loader, opt, log):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        out = model(x)
        loss = F.cross_entropy(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL304
        log.extend(out.argmax(1).tolist())
        # expect: TL304
        log.append(out.detach().cpu())


def log_step(loss, meter):
    # expect: TL304
    meter.update(loss.item())


# Flagged: the sync is in a helper called on every step.
def sync_in_helper(model, loader, opt, meter):
    model.train()
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        log_step(loss, meter)


# Flagged: a NaN check that reads the loss every step (the `else` branch of a guard runs every other step).
def nan_check_every_step(model, loader, opt):
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        # expect: TL304
        if torch.isnan(loss).item():
            continue
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0:
            pass
        else:
            # expect: TL304
            last = loss.item()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: read every N steps; accumulated on the device in between.
def logged_every_n(model, loader, opt, log_every=50):
    model.train()
    total = torch.zeros((), device=device)
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.detach()
        if step % log_every == 0:
            # ok: TL304
            print(f"step {step} loss {total.item() / (step + 1):.4f}")


# OK: nanoGPT's guard: `iter_num % log_interval == 0 and master_process`.
def nanogpt_guard(model, loader, opt, log_interval, master_process):
    model.train()
    iter_num = 0
    for x, y in loader:
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if iter_num % log_interval == 0 and master_process:
            # ok: TL304
            lossf = loss.item()
            print(iter_num, lossf)
        iter_num += 1


# OK: timm's guard: `last_batch or batch_idx % log_interval == 0`, with `last_batch` a comparison.
def timm_guard(model, loader, opt, log_interval):
    model.train()
    last_idx = len(loader) - 1
    for batch_idx, (x, y) in enumerate(loader):
        last_batch = batch_idx == last_idx
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if last_batch or batch_idx % log_interval == 0:
            # ok: TL304
            print(batch_idx, loss.item())


# OK: an early `continue` unless it is a logging step.
def early_continue_guard(model, loader, opt):
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 != 0:
            continue
        # ok: TL304
        print(step, loss.item())


# OK: once per epoch, after the step loop.
def per_epoch_read(model, loader, opt, epochs):
    model.train()
    for epoch in range(epochs):
        total = torch.zeros((), device=device)
        for x, y in loader:
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.detach()
        # ok: TL304
        print(epoch, total.item())


# OK: evaluation loops are not training steps; reading metrics there is expected.
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    correct = 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        # ok: TL304
        correct += (model(x).argmax(1) == y).sum().item()
    return correct


# OK: a host tensor (a DataLoader batch not yet moved) reads without a device sync.
def host_batch_read(model, loader, opt):
    model.train()
    for x, y in loader:
        # ok: TL304
        n = y.tolist()
        loss = F.cross_entropy(model(x.to(device)), y.to(device)) * len(n)
        opt.zero_grad()
        loss.backward()
        opt.step()


# OK: an evaluation every N steps reads its results under the guard (the call site is guarded).
def eval_every_n(model, loader, val_loader, opt):
    model.train()
    for step, (x, y) in enumerate(loader):
        loss = F.cross_entropy(model(x.to(device)), y.to(device))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 500 == 0:
            report(model, val_loader)


def report(model, val_loader):
    for x, y in val_loader:
        # An evaluation pass of the model its caller trains, with gradients on.
        # expect: TL102
        out = model(x.to(device))
        # ok: TL304
        print(out.mean().item())
        loss = F.cross_entropy(out, y.to(device))
        # ok: TL304
        print(float(loss))


def calculate_accuracy(y_pred, y):
    top_pred = y_pred.argmax(1, keepdim=True)
    correct = top_pred.eq(y.view_as(top_pred)).sum()
    return correct.float() / y.shape[0]


# The helper's result is where what its callers hand it is: a summary made
# before its callers were seen (its parameters unknown) is replaced once
# they are.
def accuracy_through_helper(model, iterator, opt, criterion):
    epoch_acc = 0
    for x, y in iterator:
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        y_pred, _ = model(x)
        loss = criterion(y_pred, y)
        acc = calculate_accuracy(y_pred, y)
        loss.backward()
        opt.step()
        # expect: TL304
        epoch_acc += acc.item()
    return epoch_acc


# A trainer that keeps its batch, outputs and losses on `self`: one method
# moves the batch to `self.device` (read from the options in `__init__`),
# one computes the losses from the outputs, one backpropagates and reads
# them. A store into an attribute first interpreted while `self.device`
# was not known yet is where it lives once it is known.
class AutoencoderTrainer(object):
    def __init__(self, args, enc, dec):
        self.args = args
        self.enc = enc
        self.dec = dec
        self.device = args.device
        self.l1 = nn.L1Loss()

    def forward(self, batch):
        self.inputs = batch.detach().to(self.device).float()
        self.codes = self.enc(self.inputs)
        self.recon = self.dec(self.codes)

    def backward(self):
        self.loss_rec = self.l1(self.recon, self.inputs)
        self.loss_sparse = torch.mean(torch.abs(self.codes))
        self.loss = self.loss_rec + self.args.sparsity * self.loss_sparse

    def update(self):
        self.opt.zero_grad()
        self.backward()
        self.loss.backward()
        self.opt.step()
        logs = {}
        # expect: TL304
        logs["rec"] = self.loss_rec.item()
        # expect: TL304
        logs["sparse"] = self.loss_sparse.item()
        return logs

    def train(self, loader):
        self.enc.to(self.device)
        self.dec.to(self.device)
        self.opt = torch.optim.Adam(list(self.enc.parameters()) + list(self.dec.parameters()))
        for batch in loader:
            self.forward(batch)
            self.update()


class AutoencoderTrainerLogsEveryN(object):
    def __init__(self, args, enc, dec):
        self.args = args
        self.enc = enc
        self.dec = dec
        self.device = args.device
        self.l1 = nn.L1Loss()

    def forward(self, batch):
        self.inputs = batch.detach().to(self.device).float()
        self.codes = self.enc(self.inputs)
        self.recon = self.dec(self.codes)

    def backward(self):
        self.loss_rec = self.l1(self.recon, self.inputs)
        self.loss_sparse = torch.mean(torch.abs(self.codes))
        self.loss = self.loss_rec + self.args.sparsity * self.loss_sparse

    def update(self):
        self.opt.zero_grad()
        self.backward()
        self.loss.backward()
        self.opt.step()
        return self.loss_rec.detach(), self.loss_sparse.detach()

    def train(self, loader):
        self.enc.to(self.device)
        self.dec.to(self.device)
        self.opt = torch.optim.Adam(list(self.enc.parameters()) + list(self.dec.parameters()))
        for step, batch in enumerate(loader):
            self.forward(batch)
            rec, sparse = self.update()
            if step % 100 == 0:
                # ok: TL304
                print(rec.item(), sparse.item())


# A legacy constructor copies its data into a new tensor on the host (the
# default tensor type), wherever the data lived: its `.cpu()` moves nothing.
# A tensor that torch.cuda's typed constructor makes lives on the device.
def plot_rows(model, opt, loader):
    rows = []
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        part = loss.detach()
        # ok: TL304
        rows.append(torch.Tensor([0.0, 1.0]).cpu() * part.shape[0])
        marks = torch.cuda.FloatTensor(2).fill_(0.0)
        # expect: TL304
        rows.append(marks.cpu())
    return rows


# One step function for both loops, the backward and the step under its flag:
# the validation loop hands it `train=False`, so under that constant its
# iteration runs a forward only and is no training loop (no sync reported
# there); the training loop's call leaves the flag at its default `True`.
def shared_step(model, opt, x, y, train=True):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    if train:
        opt.zero_grad()
        loss.backward()
        opt.step()
    return logits, loss


def epochs_with_shared_step(model, opt, loader, val_loader, epochs):
    for _ in range(epochs):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits, loss = shared_step(model, opt, x, y)
            # expect: TL304
            print(loss.cpu())
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                logits, loss = shared_step(model, opt, x, y, train=False)
                # ok: TL304
                print(loss.cpu())
