import torch
from torch import nn

from nets.trainers import Encoder, Generator


def main():
    enc = Encoder(8)
    dec = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
    trainer = Generator(enc, dec)
    trainer.eval_mode()
    samples = []
    for _ in range(4):
        samples.append(trainer.generate(torch.randn(2, 8), 3).tolist())
    print(len(samples))


if __name__ == "__main__":
    main()
