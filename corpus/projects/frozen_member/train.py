import torch

from models import build_sr, build_switching, create_model


def train_sr(opt, loader):
    torch.manual_seed(opt.seed)
    model = build_sr(opt)
    for lr_img, hr_img in loader:
        # ok: TL203
        model.optimize_parameters(lr_img, hr_img)


def train_switching(opt, loader):
    model = build_switching(opt)
    for x in loader:
        # ok: TL203
        model.optimize_parameters(x)


def train_either(opt, loader):
    model = create_model(opt)
    for x in loader:
        # ok: TL203
        model.optimize_parameters(x)
