import torch

from model.detector import Detector


def main():
    net = Detector()
    opt = torch.optim.SGD(net.parameters(), lr=0.01)
    data = [(torch.randn(8, 16), torch.randint(0, 21, (8,))) for _ in range(3)]
    for x, y in data:
        loss = torch.nn.functional.cross_entropy(net(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(net.predict(torch.randn(2, 16)), net.predict_batch(torch.randn(4, 16)))
    print(net.predict_logged(torch.randn(4, 16)))


if __name__ == "__main__":
    main()
