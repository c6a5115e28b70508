import torch.nn.functional as F

from molnet.progress import counted, maybe_bar


def fit_one_epoch(loader, model, opt, verbose, epoch):
    model.train()
    if loader.sampler is not None and hasattr(loader.sampler, "set_epoch"):
        loader.sampler.set_epoch(epoch)
    # ok: TL215
    for graph in maybe_bar(loader, verbose):
        opt.zero_grad()
        loss = F.mse_loss(model(graph), graph.y)
        loss.backward()
        opt.step()


def fit_counted(loader, model, opt):
    # ok: TL215
    for step, graph in counted(loader):
        opt.zero_grad()
        loss = F.mse_loss(model(graph), graph.y)
        loss.backward()
        opt.step()
