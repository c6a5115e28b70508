import torch

from heads import SmoothDrop, StochasticDepth


def test_stochastic_depth_off_in_eval():
    layer = StochasticDepth(p=0.5)
    layer.eval()
    x = torch.ones(4, 8)
    # expect: TL102
    out = layer(x)
    assert torch.equal(out, x)


def test_smooth_drop_off_in_eval():
    layer = SmoothDrop(p=0.5)
    layer.eval()
    x = torch.ones(2, 4, 8)
    # expect: TL102
    out = layer(x)
    assert out.shape == x.shape
