"""MONAI's criteria and networks, known by their names.

`monai.losses.DiceLoss` is a criterion (a subclass of torch.nn's `_Loss`):
calling it computes a loss that carries the graph of its input, so a sum of
them kept across training steps keeps every step's graph. `DenseNet121`
holds batch norm by default (`norm="batch"`): evaluated in train mode, it
normalises with the evaluation batches' statistics and updates its running
ones. `SegResNet` normalises with group norm and has no dropout by default:
its mode changes nothing.
"""
import torch
import torch.nn.functional as F
from monai.losses import DiceLoss
from monai.networks.nets import DenseNet121, SegResNet


def train(model, loader, opt):
    dice = DiceLoss(sigmoid=True)
    dice_total = 0.0
    for x, y in loader:
        out = model(x)
        loss = F.binary_cross_entropy_with_logits(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL101
        dice_total += dice(out, y)
    return dice_total


def train_ok(model, loader, opt):
    dice = DiceLoss(sigmoid=True)
    dice_total = 0.0
    for x, y in loader:
        out = model(x)
        loss = F.binary_cross_entropy_with_logits(out, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        with torch.no_grad():
            # ok: TL101
            dice_total += dice(out, y)
    return dice_total


def validate(loader):
    net = DenseNet121(spatial_dims=2, in_channels=1, out_channels=2)
    net.load_state_dict(torch.load("best.pt", weights_only=True))
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # expect: TL212
            correct += (net(x).argmax(1) == y).sum().item()
    return correct


def validate_in_eval_mode(loader):
    net = DenseNet121(spatial_dims=2, in_channels=1, out_channels=2)
    net.load_state_dict(torch.load("best.pt", weights_only=True))
    net.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # ok: TL212
            correct += (net(x).argmax(1) == y).sum().item()
    return correct


def validate_group_norm(loader):
    net = SegResNet(spatial_dims=3, in_channels=1, out_channels=2)
    net.load_state_dict(torch.load("best.pt", weights_only=True))
    total = 0.0
    with torch.no_grad():
        for x, y in loader:
            # ok: TL212
            total += net(x).mean().item()
    return total
