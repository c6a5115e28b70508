"""Question order: a helper that two methods call, one asked about first.

A sampler's methods hand the network's output to a helper that copies it to
the host (`.cpu().numpy()`) to draw the next token with numpy; the token
goes back to the device on every step. Where the helper's argument lives
comes from its callers, both of them: the answer must not depend on which
function another rule asked about first (`to_device`, reached from the
constructor, brings the class and `write_logged`, which stores into
`self`, but not `write`).
"""
import numpy as np
import torch
from torch import nn


def to_device(net):
    net = net.cuda()
    return net


class Writer:
    def __init__(self, net, start):
        self.net = to_device(net)
        self.start = start
        self.written = 0

    def write_logged(self, length):
        self.net.eval()
        token = torch.LongTensor([self.start])[None].cuda()
        for _ in range(length):
            with torch.no_grad():
                out = self.net(token)
            nxt = draw_token(out)
            # expect: TL303
            token = torch.LongTensor(nxt)[None].cuda()
            self.written += 1

    def write(self, length):
        self.net.eval()
        token = torch.LongTensor([self.start])[None].cuda()
        text = []
        for _ in range(length):
            with torch.no_grad():
                out = self.net(token)
            nxt = draw_token(out)
            # expect: TL303
            token = torch.LongTensor(nxt)[None].cuda()
            text.append(int(nxt[0]))
        return text


class DeviceWriter:
    def __init__(self, net, start):
        self.net = to_device(net)
        self.start = start
        self.written = 0

    def write_logged(self, length):
        self.net.eval()
        token = torch.tensor([[self.start]], device="cuda")
        for _ in range(length):
            with torch.no_grad():
                out = self.net(token)
            # ok: TL303
            token = draw_token_on_device(out)[None].cuda()
            self.written += 1

    def write(self, length):
        self.net.eval()
        token = torch.tensor([[self.start]], device="cuda")
        text = []
        for _ in range(length):
            with torch.no_grad():
                out = self.net(token)
            # ok: TL303
            token = draw_token_on_device(out)[None].cuda()
            text.append(token)
        return text


def draw_token(scores, k=4):
    best, ids = torch.topk(scores, k, 1)
    best = (best / best.sum()).squeeze(0).cpu().numpy()
    ids = ids.squeeze(0).cpu().numpy()
    return np.random.choice(ids, size=1, p=best)


def draw_token_on_device(scores, k=4):
    best, ids = torch.topk(scores, k, 1)
    pick = torch.multinomial(best.squeeze(0) / best.sum(), 1)
    return ids.squeeze(0)[pick]


def main():
    net = nn.Sequential(nn.Embedding(50, 32), nn.Flatten(), nn.Linear(32, 50))
    writer = Writer(net, 1)
    print(writer.write(20))
    writer = DeviceWriter(net, 1)
    print(writer.write(20))
