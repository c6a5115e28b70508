import torch

from experiment import get_experiment


def main(model, loader):
    helper = get_experiment("qap")("run")
    opt = torch.optim.Adam(model.parameters())
    for x, y in loader:
        opt.zero_grad()
        raw = model(x)
        loss = helper.criterion(raw, y) + helper.raw(raw, y) + helper.given(raw, y)
        loss.backward()
        opt.step()
