"""TL401 loss-outside-autocast: fixtures.

An `expect` annotation sits before a loss call that runs after the
`with autocast` block whose model forward produced its input, in the same
iteration: the loss then runs on reduced-precision outputs without autocast's
fp32 policy. An `ok` annotation sits before loss calls (or later uses of the
outputs) that only look like that: the loss is inside the block, autocast is
disabled, the loss is `outputs.loss` computed by the forward itself, or the
value is not a loss.
Every loop resets gradients and uses the GradScaler fully, so TL201, TL204
and TL205 stay silent. The `torch.cuda.amp` forms are deprecated since
PyTorch 2.4 (a TL402 finding once that rule exists).
"""
from contextlib import nullcontext, suppress
from functools import partial

import torch
import torch as T
import torch.nn.functional as F
from torch import nn, optim
from torch.amp import autocast as ac
from torch.cuda.amp import autocast
from transformers import AutoModelForCausalLM

device = torch.device("cuda")


class Net(nn.Module):
    def __init__(self, in_features=784, num_classes=10):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Flatten(), nn.Linear(in_features, 512), nn.GELU(), nn.Linear(512, num_classes)
        )

    def forward(self, x):
        return self.layers(x)


class Detector(nn.Module):
    def __init__(self, num_classes=20):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.cls_head = nn.Linear(64, num_classes)
        self.box_head = nn.Linear(64, 4)

    def forward(self, x):
        feats = self.backbone(x).flatten(1)
        return self.cls_head(feats), self.box_head(feats)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the forward is under torch.autocast, the criterion runs after the block on fp16 logits.
def criterion_after_block(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type="cuda", dtype=torch.float16):
            logits = model(x)
        # expect: TL401
        loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: `torch.amp.autocast("cuda")` and a functional loss after the block.
def amp_autocast_functional_loss(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.amp.autocast("cuda"):
            logits = model(x)
        # expect: TL401
        loss = F.cross_entropy(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: `from torch.cuda.amp import autocast` resolves to autocast (and is the deprecated spelling).
def cuda_amp_autocast_import(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        # expect: TL402
        with autocast():
            out = model(x)
        # expect: TL401
        loss = criterion(out, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: `from torch.amp import autocast as ac` resolves too.
def amp_autocast_renamed_import(train_loader):
    model = Net().to(device)
    optimizer = optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with ac("cuda", dtype=torch.float16):
            out = model(x)
        # expect: TL401
        loss = criterion(out, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: `import torch as T`; T.autocast and T.nn.functional.mse_loss.
def torch_alias_T(train_loader):
    model = Net(in_features=32, num_classes=1).to(device)
    optimizer = T.optim.Adam(model.parameters(), lr=1e-3)
    scaler = T.amp.GradScaler("cuda")
    for x, target in train_loader:
        x, target = x.to(device), target.to(device)
        optimizer.zero_grad()
        with T.autocast("cuda", dtype=T.float16):
            pred = model(x).squeeze(-1)
        # expect: TL401
        loss = T.nn.functional.mse_loss(pred, target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: a criterion constructed and called inline after the block.
def inline_criterion_after_block(train_loader):
    model = Net(in_features=32, num_classes=1).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    for x, target in train_loader:
        x, target = x.to(device), target.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            pred = model(x)
        # expect: TL401
        loss = nn.SmoothL1Loss()(pred, target)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: model, criterion and scaler are `self.` attributes bound in __init__.
class AmpTrainer:
    def __init__(self, lr=1e-3):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()
        self.scaler = torch.amp.GradScaler("cuda")

    def fit(self, train_loader):
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            self.optimizer.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                logits = self.model(x)
            # expect: TL401
            loss = self.criterion(logits, y)
            self.scaler.scale(loss).backward()
            self.scaler.step(self.optimizer)
            self.scaler.update()


# Flagged: everything arrives as ordinary parameters; the step function is called from a loop.
def train_step(model, batch, optimizer, criterion, scaler):
    x, y = batch
    x, y = x.to(device), y.to(device)
    optimizer.zero_grad()
    with torch.autocast("cuda", dtype=torch.float16):
        outputs = model(x)
    # expect: TL401
    loss = criterion(outputs, y)
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    # expect: TL304
    return loss.item()


def train(model, loader, optimizer, criterion, scaler):
    model.train()
    for batch in loader:
        train_step(model, batch, optimizer, criterion, scaler)


# Flagged twice: a detector with two heads, both losses computed after the block (one finding per loss call).
def detector_two_losses_after_block(train_loader):
    model = Detector().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    cls_criterion = nn.CrossEntropyLoss()
    box_criterion = nn.SmoothL1Loss()
    scaler = torch.amp.GradScaler("cuda")
    for images, labels, boxes in train_loader:
        images, labels, boxes = images.to(device), labels.to(device), boxes.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            cls_logits, box_preds = model(images)
        # expect: TL401
        cls_loss = cls_criterion(cls_logits, labels)
        # expect: TL401
        box_loss = box_criterion(box_preds, boxes)
        loss = cls_loss + box_loss
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: backbone and head both run in the block; only the loss is left outside.
def backbone_and_head(train_loader):
    backbone = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()).to(device)
    head = nn.Linear(32, 10).to(device)
    optimizer = torch.optim.AdamW(list(backbone.parameters()) + list(head.parameters()), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            feats = backbone(x)
            logits = head(feats)
        # expect: TL401
        loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: CPU autocast with bfloat16 is an autocast region too (no scaler needed for bf16).
def cpu_bfloat16_autocast(train_loader):
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        optimizer.zero_grad()
        with torch.autocast("cpu", dtype=torch.bfloat16):
            logits = model(x)
        # expect: TL401
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()


# Flagged: `enabled=True` written out is still enabled.
def enabled_true_literal(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=True):
            logits = model(x)
        # expect: TL401
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()


# Flagged: `enabled=use_amp` is not the literal False; on the AMP path the loss runs outside autocast.
def enabled_from_flag(train_loader, use_amp):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda", enabled=use_amp)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16, enabled=use_amp):
            logits = model(x)
        # expect: TL401
        loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: the main loss is inside, but an auxiliary loss on the same outputs is added after the block.
def auxiliary_loss_added_after(train_loader, aux_weight=0.1):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    aux_criterion = nn.KLDivLoss(reduction="batchmean")
    scaler = torch.amp.GradScaler("cuda")
    for x, y, soft_targets in train_loader:
        x, y, soft_targets = x.to(device), y.to(device), soft_targets.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
            # ok: TL401
            loss = criterion(logits, y)
        # expect: TL401
        loss = loss + aux_weight * aux_criterion(logits.log_softmax(-1), soft_targets)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# Flagged: a causal LM whose logits come out of the block; the shifted cross-entropy is computed outside.
def causal_lm_shifted_loss_after(train_dataloader):
    model = AutoModelForCausalLM.from_pretrained("gpt2").to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    model.train()
    for batch in train_dataloader:
        input_ids = batch["input_ids"].to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(input_ids=input_ids)
        logits = outputs.logits[:, :-1, :]
        labels = input_ids[:, 1:]
        # expect: TL401
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), labels.reshape(-1))
        loss.backward()
        optimizer.step()


# Flagged: an evaluation loop (no_grad + autocast); the validation loss value is computed in reduced precision.
def eval_loss_after_block(model, val_loader, criterion):
    model.eval()
    total = 0.0
    for x, y in val_loader:
        x, y = x.to(device), y.to(device)
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
        # expect: TL401
        total += criterion(logits, y).item()
    return total / len(val_loader)


# Flagged: the context arrives as a parameter (default: no context); the
# training script's caller hands it `partial(torch.autocast, ...)` when AMP
# is on, so on that path the validation loss runs outside autocast.
def validate_with_context(model, loader, loss_fn, amp_autocast=suppress):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            with amp_autocast():
                output = model(x.to(device))
            # expect: TL401
            total += loss_fn(output, y.to(device)).item()
    return total / len(loader)


def run_validation(model, loader, use_amp):
    amp_autocast = suppress
    if use_amp:
        amp_autocast = partial(torch.autocast, device_type="cuda", dtype=torch.float16)
    return validate_with_context(model, loader, nn.CrossEntropyLoss(), amp_autocast=amp_autocast)


def amp_forward(model, x):
    with torch.autocast("cuda", dtype=torch.float16):
        return model(x)


# Todo: the autocast region is in a helper that returns the fp16 outputs; the loss in the caller is outside it,
# but seeing that needs return-value flow across functions.
def autocast_hidden_in_helper(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = amp_forward(model, x)
        # todo-expect: TL401
        loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the recommended recipe: loss inside the block, backward (scaled) outside it.
def loss_inside_backward_outside(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
            # ok: TL401
            loss = criterion(logits, y)
        # ok: TL401
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# OK: the same parameter, but every caller hands a context that is no
# autocast (or leaves the default), so the block changes no precision.
def validate_plain_context(model, loader, loss_fn, ctx=suppress):
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            with ctx():
                output = model(x.to(device))
            # ok: TL401
            total += loss_fn(output, y.to(device)).item()
    return total / len(loader)


def run_plain_validation(model, loader):
    validate_plain_context(model, loader, nn.CrossEntropyLoss(), ctx=nullcontext)
    return validate_plain_context(model, loader, nn.CrossEntropyLoss())


# OK: `enabled=False` makes the block a no-op; the loss after it is plain fp32.
def autocast_disabled(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", enabled=False):
            logits = model(x)
        # ok: TL401
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()


# OK: `torch.amp.autocast(..., enabled=False)`, keyword device_type, same as above.
def amp_autocast_disabled_keyword(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.amp.autocast(device_type="cuda", dtype=torch.float16, enabled=False):
            logits = model(x)
        # ok: TL401
        loss = F.cross_entropy(logits, y)
        loss.backward()
        optimizer.step()


# OK: the loss is computed in fp32 on purpose in a nested `enabled=False` region, on outputs cast with `.float()`.
def nested_fp32_region_for_loss(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
            with torch.autocast("cuda", enabled=False):
                # ok: TL401
                loss = criterion(logits.float(), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# OK: Hugging Face models compute `outputs.loss` inside their forward, so it was computed under autocast.
def hf_outputs_loss_read_after(train_dataloader, accum_steps=4):
    model = AutoModelForCausalLM.from_pretrained("gpt2").to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    model.train()
    for step, batch in enumerate(train_dataloader):
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(**batch)
        # ok: TL401
        loss = outputs.loss / accum_steps
        loss.backward()
        if (step + 1) % accum_steps == 0:
            optimizer.step()
            optimizer.zero_grad()


# OK: the dict form `outputs["loss"]` is the same forward-computed loss.
def hf_outputs_loss_subscript(train_dataloader):
    model = AutoModelForCausalLM.from_pretrained("gpt2").to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5)
    model.train()
    for batch in train_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(**batch, return_dict=True)
        # ok: TL401
        loss = outputs["loss"]
        loss.backward()
        optimizer.step()


# OK: after the block the outputs only feed metrics (argmax accuracy, softmax confidence), not a loss.
def metrics_after_block(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    correct = 0
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
            loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        # ok: TL401
        # expect: TL304
        correct += (logits.argmax(dim=1) == y).sum().item()
        # ok: TL401
        # expect: TL304
        confidence = torch.softmax(logits.detach().float(), dim=-1).max(dim=-1).values.mean().item()
        print(confidence)
    return correct


# OK: the per-sample loss is computed inside; only its reduction (`.mean()`, a weighting) happens after the block.
def reduction_after_block(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    per_sample = nn.CrossEntropyLoss(reduction="none")
    scaler = torch.amp.GradScaler("cuda")
    for x, y, weights in train_loader:
        x, y, weights = x.to(device), y.to(device), weights.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            losses = per_sample(model(x), y)
        # ok: TL401
        loss = (losses * weights).mean()
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# OK: two autocast blocks in one iteration; the loss is inside the second one.
def loss_in_second_autocast_block(train_loader, teacher):
    student = Net().to(device)
    optimizer = torch.optim.AdamW(student.parameters(), lr=1e-3)
    kl = nn.KLDivLoss(reduction="batchmean")
    scaler = torch.amp.GradScaler("cuda")
    teacher.eval()
    for x, _ in train_loader:
        x = x.to(device)
        optimizer.zero_grad()
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
            t_logits = teacher(x)
        with torch.autocast("cuda", dtype=torch.float16):
            s_logits = student(x)
            # ok: TL401
            loss = kl(s_logits.log_softmax(-1), t_logits.softmax(-1))
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


def compute_loss(criterion, logits, y, smoothing_weight=0.0):
    return criterion(logits, y) + smoothing_weight * logits.pow(2).mean()


# OK: the loss is computed by a local helper that is called inside the block.
def loss_helper_called_inside(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
            # ok: TL401
            loss = compute_loss(criterion, logits, y, smoothing_weight=1e-4)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# OK: no autocast at all: an fp32 forward and loss.
def plain_fp32(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        logits = model(x)
        # ok: TL401
        loss = criterion(logits, y)
        loss.backward()
        optimizer.step()


# OK: the deprecated `torch.cuda.amp` spelling with the loss inside the block.
def cuda_amp_autocast_loss_inside(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        # expect: TL402
        with autocast(dtype=torch.float16):
            logits = model(x)
            # ok: TL401
            loss = criterion(logits, y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()


# OK: the loss after the block is taken on a forward that ran outside it (the autocast block only built a mask).
def loss_on_forward_outside_block(train_loader, mask_net):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss(reduction="none")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.no_grad(), torch.autocast("cuda", dtype=torch.float16):
            keep = mask_net(x).argmax(dim=1) == 1
        logits = model(x)
        # ok: TL401
        loss = (criterion(logits, y) * keep.float()).mean()
        loss.backward()
        optimizer.step()


# OK: the outputs are cast back to fp32 with `.float()` before the loss, so the loss does run in fp32.
def float_cast_before_loss(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
        # ok: TL401
        loss = criterion(logits.float(), y)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
