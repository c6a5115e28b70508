import torch

from pkg import Quantizer
from pkg.layers import Quantizer as LayerQuantizer


def test_defaults_hold_no_parameters():
    q = Quantizer([8, 5, 5])
    q.eval()
    x = torch.randn(2, 3)
    # ok: TL102
    y = q(x)
    assert y.shape == x.shape


def test_projection_holds_parameters():
    q = LayerQuantizer([8, 5, 5], dim=4)
    q.eval()
    x = torch.randn(2, 4)
    # expect: TL102
    y = q(x)
    assert y.shape == (2, 3)


def test_learned_scale_holds_parameters():
    q = LayerQuantizer([8, 5, 5], learned_scale=True)
    q.eval()
    x = torch.randn(2, 3)
    # expect: TL102
    y = q(x)
    assert y.shape == x.shape


def test_trainable_codes():
    q = Quantizer([8, 5, 5], trainable_codes=True)
    q.eval()
    x = torch.randn(2, 3)
    # expect: TL102
    y = q(x)
    assert y.shape == x.shape
