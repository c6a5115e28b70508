from torch import nn


def embedding(count, width):
    table = nn.Embedding(count, width)
    nn.init.normal_(table.weight, std=0.02)
    return table
