# TL102 and a model its code freezes before the evaluation: every parameter's
# `requires_grad` set to False in a loop over `.parameters()` (or
# `.named_parameters()`), the way OCR and detection scripts freeze a network
# in their validation function and unfreeze it in the training loop. A
# forward of a frozen model on inputs that require no grad records nothing.
# The model here is a global of the script that the functions use directly,
# wrapped in DataParallel on one branch only; a loop that sets True, a loop
# under a test, or a flag set on the module itself (a typo for
# `requires_grad_(False)`) freezes nothing, and the finding stays.
import torch
from torch import nn

net = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 4))
if torch.cuda.device_count() > 1:
    net = nn.DataParallel(net)
optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
buffer = torch.zeros(8, 16)


def fill(dst, src):
    with torch.no_grad():
        dst.resize_(src.size()).copy_(src)


def validate(batches):
    for p in net.parameters():
        p.requires_grad = False
    net.eval()
    right = 0
    for x, y in batches:
        fill(buffer, x)
        # ok: TL102
        scores = net(buffer)
        right += int((scores.argmax(1) == y).sum())
    return right


def validate_named(batches):
    for _, p in net.named_parameters():
        p.requires_grad = False
    net.eval()
    # ok: TL102
    return [net(buffer * 2).argmax(1) for _ in batches]


def validate_in_place(batches):
    net.requires_grad_(False)
    net.eval()
    # ok: TL102
    return [net(buffer + 1).sum() for _ in batches]


def validate_unfrozen(batches):
    for p in net.parameters():
        p.requires_grad = True
    net.eval()
    # expect: TL102
    return [net(buffer + 1).sum() for _ in batches]


def validate_some(batches, freeze):
    for p in net.parameters():
        if freeze:
            p.requires_grad = False
    net.eval()
    # expect: TL102
    return [net(buffer + 1).sum() for _ in batches]


def validate_typo(batches):
    # expect: TL211
    net.requires_grad = False
    net.eval()
    # expect: TL102
    return [net(buffer + 1).sum() for _ in batches]


def train(batches):
    for x, y in batches:
        for p in net.parameters():
            p.requires_grad = True
        net.train()
        loss = nn.functional.cross_entropy(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    validate(batches)
    validate_named(batches)
    validate_in_place(batches)
    validate_unfrozen(batches)
    validate_some(batches, len(batches) > 10)
    validate_typo(batches)


def probe(features):
    head = nn.Linear(16, 4)
    head.load_state_dict(torch.load("head.pt", weights_only=True))
    for p in head.parameters():
        p.requires_grad = False
    head.eval()
    # ok: TL102
    return head(features.detach())


def probe_trainable(features):
    head = nn.Linear(16, 4)
    head.load_state_dict(torch.load("head.pt", weights_only=True))
    head.eval()
    # expect: TL102
    return head(features.detach())
