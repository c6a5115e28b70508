"""MONAI's `eval_mode(*nets)` puts the networks in eval mode inside
`torch.no_grad()` and restores their mode on exit: a forward in it records
no graph. (Its `train_mode(*nets)` runs under `torch.set_grad_enabled(True)`.)"""
import torch
from monai.networks import eval_mode as evaluating
from monai.networks.utils import eval_mode


def confusion(model, loader, device):
    preds = []
    model.eval()
    with eval_mode(model):
        for batch in loader:
            # ok: TL102
            preds.append(model(batch["image"].to(device)).argmax(1))
    return torch.cat(preds)


def score(model, images):
    model.eval()
    with evaluating(model):
        # ok: TL102
        return model(images).softmax(1)


def saliency(model, images):
    # Gradients back on inside eval_mode: the forward records a graph, and
    # nothing here backpropagates it.
    model.eval()
    with eval_mode(model):
        with torch.enable_grad():
            # expect: TL102
            out = model(images)
    return out.max(1).values.mean().item()
