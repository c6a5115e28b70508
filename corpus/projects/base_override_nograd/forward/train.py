import torch
from torch import nn

from base import Base


class Net(Base):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(4, 2)
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        # the base's predict calls self.forward under no_grad, but every
        # net(x) runs it too: its entry is not the base's
        # expect: TL216
        h = nn.functional.dropout(self.fc(x), 0.1)
        return h


def main(data):
    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    total = 0
    for x, y in data:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        # expect: TL101
        total += loss
    net.eval()
    for x, y in data:
        # expect: TL102
        out = net(x)
        print(out)
    print(total, net.predict(x))


if __name__ == "__main__":
    main([(torch.randn(3, 4), torch.zeros(3).long())])
