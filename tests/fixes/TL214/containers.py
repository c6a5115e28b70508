import torch.nn as nn


class Net(nn.Module):
    def __init__(self, dim, depth):
        super().__init__()
        self.hidden = [nn.Linear(dim, dim) for _ in range(depth)]
        self.pair = (nn.Linear(dim, dim), nn.LayerNorm(dim))
        self.heads = {"age": nn.Linear(dim, 1), "gender": nn.Linear(dim, 2)}

    def forward(self, x):
        for layer in self.hidden:
            x = layer(x)
        return {k: head(x) for k, head in self.heads.items()}
