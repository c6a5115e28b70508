import torch


def collect(model, loader, mode="inference"):
    model.eval()
    outputs = []
    for x, _ in loader:
        if mode == "inference":
            with torch.no_grad():
                out = model(x)
        else:
            # expect: TL102
            out = model(x)
        # expect: TL106
        outputs.append(out)
    model.train()
    return torch.cat(outputs)


def gather(model, loader, mode="inference"):
    model.eval()
    outputs = []
    for x, _ in loader:
        if mode != "inference":
            # expect: TL102
            out = model(x)
        else:
            with torch.no_grad():
                out = model(x)
        # expect: TL106
        outputs.append(out)
    model.train()
    return torch.cat(outputs)
