import torch
import torch.nn.functional as F

from probing.heads import LinearProbe


class ProbeCallback:
    """Trains a probe on the features of the network a trainer hands to each
    hook; the probe is attached to that network when fitting starts."""

    def __init__(self, width, classes):
        self.width = width
        self.classes = classes
        self.opt = None

    def on_fit_start(self, trainer, net):
        net.probe = LinearProbe(self.width, self.classes)
        self.opt = torch.optim.SGD(net.probe.parameters(), lr=0.01)

    def on_train_batch_end(self, trainer, net, batch):
        x, y = batch
        with torch.no_grad():
            feats = net(x)
        scores = net.probe(feats.detach())
        # ok: TL208
        loss = F.cross_entropy(scores, y)
        loss.backward()
        self.opt.step()
        self.opt.zero_grad()

    def on_validation_batch_end(self, trainer, net, batch):
        x, y = batch
        with torch.no_grad():
            scores = net.probe(net(x))
            # ok: TL208
            return F.cross_entropy(scores, y)

    def on_test_batch_end(self, trainer, net, batch, other):
        # the network handed here is replaced by another object first
        net = other
        x, y = batch
        # ok: TL208
        return F.cross_entropy(net.probe(x), y)
