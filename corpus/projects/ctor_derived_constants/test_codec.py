import torch

from codec import ScalarCodec


def test_levels_alone_hold_buffers_only():
    c = ScalarCodec([3, 3, 3])
    c.eval()
    x = torch.randn(2, 3)
    # ok: TL102
    out, codes = c(x)
    # ok: TL102
    back = c.decode(codes)
    assert torch.allclose(out, back)


def test_same_width_holds_buffers_only():
    c = ScalarCodec([3, 3, 3], dim=3)
    c.eval()
    x = torch.randn(2, 3)
    # ok: TL102
    out, codes = c(x)
    assert out.shape == x.shape


def test_other_width_holds_projections():
    c = ScalarCodec([3, 3, 3], dim=5)
    c.eval()
    x = torch.randn(2, 5)
    # expect: TL102
    out, codes = c(x)
    # expect: TL102
    back = c.decode(codes)
    assert torch.allclose(out, back)
