import torch
import torch.nn as nn


def to_devices(model):
    if torch.cuda.device_count() > 1:
        print(f"using {torch.cuda.device_count()} GPUs")
    return nn.DataParallel(model).cuda()
