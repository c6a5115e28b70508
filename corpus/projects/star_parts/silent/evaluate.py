import torch


def dice_score(net, batches):
    net.eval()
    total = 0.0
    with torch.no_grad():
        for i, (img, mask) in enumerate(batches):
            # ok: TL212
            pred = (net(img) > 0.5).float()
            total += (2 * (pred * mask).sum() / (pred.sum() + mask.sum() + 1e-6)).item()
    return total / (i + 1)
