"""TL105 distributed-load-without-map-location (opt-in): a single-process script.

Nothing here starts a process group, wraps a model for distributed training
or reads LOCAL_RANK: one process loads the checkpoint onto the device it was
saved from, where it then trains, so no finding.
"""
import torch
import torch.nn as nn


def resume(path):
    model = nn.Linear(64, 8).cuda()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    # ok: TL105
    ckpt = torch.load(path)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    # ok: TL105
    model.load_state_dict(torch.load(path.replace(".pt", "-ema.pt")))
    return model, optimizer
