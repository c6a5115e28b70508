import torch.utils.checkpoint as cp
from torch.utils.checkpoint import checkpoint, checkpoint_sequential


def forward(blocks, x):
    x = checkpoint(blocks[0], x, use_reentrant=False)
    x = cp.checkpoint(blocks[1], x, use_reentrant=False,)
    x = checkpoint(
        blocks[2],
        x, use_reentrant=False,
    )
    return checkpoint_sequential(blocks, 2, x, use_reentrant=False)
