"""TL104, TL201, TL204, TL405: the loops whose iteration runs a backward.

These rules read one iteration of the loop that backpropagates. A loop over
a few settings that builds its model, its optimizer, its GradScaler and its
data afresh in each iteration and takes one step there is a run per
configuration, no step loop: nothing carries over from one iteration to the
next (no gradient to reset, no scaler stepped twice, no graph kept for the
next iteration). An `expect` annotation marks the twins whose model,
optimizer or scaler is made before the loop; an `ok` annotation marks the
sweeps. Clipping before unscaling is wrong in any single step: it is read
over the function when no step loop holds it.
"""
import torch
import torch.nn as nn

SETTINGS = [(4, 0.1), (8, 0.01)]


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(2, width)

    def forward(self, x):
        return self.fc(x)


# ---------------------------------------------------------------------------
# Flagged: the model, optimizer or scaler outlives the iteration
# ---------------------------------------------------------------------------


def one_scaler_for_every_setting():
    model = Net().cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    scaler = torch.amp.GradScaler("cuda")
    for width, lr in [(4, 0.1), (8, 0.01)]:
        # expect: TL307
        x = torch.ones(4, 2, device="cuda")
        with torch.autocast("cuda"):
            loss = model(x).sum()
        scaler.scale(loss).backward()
        # expect: TL201, TL204
        scaler.step(opt)


def one_model_retained_for_every_dtype():
    model = Net()
    for dtype in [torch.float32, torch.float64]:
        x = torch.randn(4, 2, dtype=dtype)
        loss = model(x).sum()
        # expect: TL104
        loss.backward(retain_graph=True)
        # expect: TL304
        print(float(loss))


def one_optimizer_for_every_setting():
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for width, lr in [(4, 0.1), (8, 0.01)]:
        # expect: TL307
        x = torch.ones(4, 2)
        model(x).sum().backward()
        # expect: TL201
        opt.step()


# ---------------------------------------------------------------------------
# Silent: one independent run per setting
# ---------------------------------------------------------------------------


def fresh_scaler_per_setting():
    for width, lr in [(4, 0.1), (8, 0.01)]:
        model = Net(width).cuda()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        scaler = torch.amp.GradScaler("cuda")
        # ok: TL307
        x = torch.ones(4, 2, device="cuda")
        with torch.autocast("cuda"):
            loss = model(x).sum()
        scaler.scale(loss).backward()
        # ok: TL201, TL204
        scaler.step(opt)


def fresh_model_retained_per_dtype():
    for dtype in [torch.float32, torch.float64]:
        model = Net()
        x = torch.randn(4, 2, dtype=dtype)
        loss = model(x).sum()
        # ok: TL104
        loss.backward(retain_graph=True)
        # ok: TL304
        print(float(loss))


def fresh_optimizer_per_setting():
    for width, lr in [(4, 0.1), (8, 0.01)]:
        model = Net(width)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        # ok: TL307
        x = torch.ones(4, 2)
        model(x).sum().backward()
        # ok: TL201
        opt.step()


def clipped_before_unscaling_per_setting():
    # Still flagged: every single step clips scaled gradients.
    for width, lr in [(4, 0.1), (8, 0.01)]:
        model = Net(width).cuda()
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        scaler = torch.amp.GradScaler("cuda")
        x = torch.ones(4, 2, device="cuda")
        with torch.autocast("cuda"):
            loss = model(x).sum()
        scaler.scale(loss).backward()
        # expect: TL405
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
