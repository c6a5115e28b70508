import torch
import torch.nn.functional as F

from nets import Generator, PointClassifier


def fit(train_loader, test_loader, epochs=10):
    net = PointClassifier()
    gen = Generator()
    opt = torch.optim.SGD(list(net.parameters()) + list(gen.parameters()), lr=0.01)
    for epoch in range(epochs):
        for step, (pts, label) in enumerate(train_loader):
            opt.zero_grad()
            loss = F.cross_entropy(net(pts), label)
            loss.backward()
            opt.step()
            if step % 20 == 0:
                # a look at one test batch every twenty steps, in eval mode
                _, batch = next(enumerate(test_loader))
                pts, label = batch
                pts = pts.float()
                net.eval()
                with torch.no_grad():
                    # ok: TL212, TL102
                    logits = net(pts)
                net.train()
                acc = (logits.argmax(1) == label).float().mean().item()
                print(epoch, step, loss.item(), acc)
            if step % 50 == 0:
                # samples from noise: no batch of data drawn
                # ok: TL212, TL102
                shapes = gen(torch.randn(4, 128))
                print(shapes.shape)
            if step % 30 == 0:
                # an extra step on a held-out batch: it trains
                more, extra = next(iter(test_loader))
                opt.zero_grad()
                # ok: TL212, TL102
                F.cross_entropy(net(more), extra).backward()
                opt.step()
