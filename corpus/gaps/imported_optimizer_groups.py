"""An optimizer class of another library built over weight-decay groups.

`BertAdam` comes from a library torchlint cannot read. It is handed the
model's parameters, split by a loop over `model.named_parameters()` into two
lists, and stepped after a backward: it is an optimizer by its use
(RULES.md principle 3). The evaluation helper called every N steps leaves
the model in eval mode (TL203), and a second loop steps without resetting
the gradients (TL201). The twins: an EMA helper built over the same groups
is no optimizer, and a list filled with parameter names hands no
parameters over.
"""
import torch
import torch.nn.functional as F
from bertlib import BertAdam, BertClassifier, ModelEma, LossTracker


def main(loader, val_loader, epochs):
    model = BertClassifier()
    decay, no_decay = [], []
    for name, param in model.named_parameters():
        if name.endswith("bias"):
            no_decay.append(param)
        else:
            decay.append(param)
    groups = [{"params": decay, "weight_decay": 0.01}, {"params": no_decay, "weight_decay": 0.0}]
    optim = BertAdam(groups, lr=2e-5)

    def _eval_epoch():
        model.eval()
        with torch.no_grad():
            for x, y in val_loader:
                model(x)

    def _train_epoch():
        model.train()
        for step, (x, y) in enumerate(loader):
            optim.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optim.step()
            if step % 1000 == 0:
                # expect: TL203
                _eval_epoch()

    def _train_epoch_restoring():
        for step, (x, y) in enumerate(loader):
            model.train()
            optim.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optim.step()
            if step % 1000 == 0:
                # ok: TL203
                _eval_epoch()

    def _finetune_without_reset():
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            # expect: TL201
            optim.step()

    for epoch in range(epochs):
        _train_epoch()
        _train_epoch_restoring()
        _finetune_without_reset()


def track(loader):
    model = BertClassifier()
    names = []
    for name, param in model.named_parameters():
        names.append(name)
    tracker = LossTracker(names)
    ema = ModelEma([{"params": list(model.parameters())}])
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        # ok: TL201
        ema.step()
        # ok: TL201
        tracker.step()
