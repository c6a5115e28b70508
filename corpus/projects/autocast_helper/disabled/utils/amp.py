import contextlib

import torch


def amp_ctx(enabled):
    if not enabled:
        return contextlib.nullcontext()
    return torch.autocast("cuda", dtype=torch.float16)


def get_autocast(cfg):
    return torch.autocast("cuda") if cfg.amp else contextlib.nullcontext()


def full_precision():
    return torch.autocast("cuda", enabled=False)
