import torch
import torch.nn as nn

import steps


def main(loader):
    model = nn.Linear(8, 2)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for batch in loader:
        opt.zero_grad()
        steps.train_step(model, opt, batch)
