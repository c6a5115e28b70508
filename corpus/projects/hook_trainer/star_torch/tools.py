import torch
from torch import nn


def count(loader):
    return max(len(loader), 1)
