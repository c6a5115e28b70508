import torch

from segnet import SegNet
from trainer import train_net

if __name__ == "__main__":
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    train_net(SegNet(3, 1).to(device), train_batches=[], val_batches=[])
