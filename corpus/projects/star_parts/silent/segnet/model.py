from .layers import *


class SegNet(nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.enc = conv_bn(channels, 32)
        self.dec = conv_bn(32, 32)
        self.out = head(32, classes)

    def forward(self, x):
        return self.out(self.dec(self.enc(x)))
