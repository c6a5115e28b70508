import torch.nn.functional as F

from molnet.progress import counted, maybe_bar


def fit_one_epoch(loader, model, opt, verbose):
    model.train()
    # expect: TL215
    for graph in maybe_bar(loader, verbose):
        opt.zero_grad()
        loss = F.mse_loss(model(graph), graph.y)
        loss.backward()
        opt.step()


def fit_counted(loader, model, opt):
    # the same loader, numbered: enumerate iterates it in the sampler's order
    # expect: TL215
    for step, graph in counted(loader):
        opt.zero_grad()
        loss = F.mse_loss(model(graph), graph.y)
        loss.backward()
        opt.step()
