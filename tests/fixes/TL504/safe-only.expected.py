import torch
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


class Trainer:
    def __init__(self, net, rank, compile_model):
        self.model = DDP(net.to(rank), device_ids=[rank])
        self.fast = torch.compile(net) if compile_model else None
        self.opt = torch.optim.AdamW(self.model.parameters())

    def save(self, path, epoch):
        torch.save({"model": self.model.state_dict(), "opt": self.opt.state_dict(), "epoch": epoch}, path)


def export(net, path):
    compiled = torch.compile(net)
    state = compiled.state_dict()
    torch.save(state, path)


def export_dp(net, path):
    torch.save(nn.DataParallel(net).state_dict(), path)
