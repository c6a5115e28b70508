import torch


def amp_ctx():
    return torch.autocast("cuda", dtype=torch.float16)


def get_autocast(cfg):
    if cfg.bf16:
        return torch.autocast("cuda", dtype=torch.bfloat16)
    return torch.amp.autocast("cuda")


class Precision:
    def __init__(self, device_type="cuda"):
        self.device_type = device_type

    def region(self):
        return torch.autocast(self.device_type)
