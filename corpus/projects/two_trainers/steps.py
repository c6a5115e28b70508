import torch.nn.functional as F


def train_step(model, opt, batch):
    x, y = batch
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    # train_a.py resets in its loop; train_b.py does not
    # ok: TL201
    opt.step()
    return loss.item()


def legacy_step(model, opt, batch):
    x, y = batch
    F.cross_entropy(model(x), y).backward()
    # its one caller is in an excluded folder
    # ok: TL201
    opt.step()
