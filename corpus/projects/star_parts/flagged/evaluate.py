import torch


def dice_score(net, batches):
    total = 0.0
    with torch.no_grad():
        for i, (img, mask) in enumerate(batches):
            # the SegNet train.py hands in is still in train mode
            # expect: TL212
            pred = (net(img) > 0.5).float()
            total += (2 * (pred * mask).sum() / (pred.sum() + mask.sum() + 1e-6)).item()
    return total / (i + 1)
