import torch


def run_validation(model, batch):
    model.eval()
    with torch.no_grad():
        out = model(batch)
    return out.mean().item()
