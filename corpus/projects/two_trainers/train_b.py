import torch
import torch.nn as nn

from steps import train_step


def main(loader):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in loader:
        train_step(model, opt, batch)
