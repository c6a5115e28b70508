import torch
import torch.nn as nn


class DiceMetric(nn.Module):
    def __init__(self, threshold):
        super().__init__()
        self.register_buffer("threshold", torch.tensor(threshold))

    def score(self, net, batches):
        net.eval()
        total, n = 0.0, 0
        with torch.no_grad():
            for img, mask in batches:
                # ok: TL212
                pred = (torch.sigmoid(net(img)) > self.threshold).float()
                total += (2 * (pred * mask).sum() / (pred.sum() + mask.sum() + 1e-6)).item()
                n += 1
        return total / max(n, 1)
