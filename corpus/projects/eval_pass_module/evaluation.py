import torch


def validate(net, loader):
    correct = 0
    for x, y in loader:
        # expect: TL102, TL212
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct


def validate_properly(net, loader):
    net.eval()
    correct = 0
    with torch.no_grad():
        for x, y in loader:
            # ok: TL102, TL212
            out = net(x)
            correct += (out.argmax(1) == y).sum().item()
    net.train()
    return correct


def predict(net, loader):
    preds = []
    for x in loader:
        # ok: TL212
        preds.append(net(x).argmax(1))
    return preds


def validate_eval_mode(net, loader):
    # `train.py` puts the model in eval mode before it calls this: no TL212;
    # gradients are on, so TL102
    correct = 0
    for x, y in loader:
        # expect: TL102
        # ok: TL212
        out = net(x)
        correct += (out.argmax(1) == y).sum().item()
    return correct
