import evaluate
import torch
import torch.nn as nn


def main(loader):
    model = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.2), nn.Linear(8, 2))
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        opt.zero_grad()
        nn.functional.cross_entropy(model(x), y).backward()
        opt.step()
        # expect: TL203
        metric = evaluate.load(model)
        print(metric)
