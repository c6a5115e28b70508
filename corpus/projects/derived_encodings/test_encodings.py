import torch

from enc.sinusoid import Sinusoid
from enc.variants import AlwaysProjected, Inherited, NeverProjected, Paraformer, Projected, Whisper


def test_sinusoid():
    enc = Sinusoid(8, 0.0, 100)
    enc.eval()
    # ok: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_whisper():
    enc = Whisper(8, 0.0, 100)
    enc.eval()
    # ok: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_paraformer():
    enc = Paraformer(d_model=8, depth=8, dropout_rate=0.0, max_len=100)
    enc.eval()
    # ok: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_inherited():
    enc = Inherited(8, 8, 0.0, 100)
    enc.eval()
    # ok: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_projected():
    enc = Projected(8, True)
    enc.eval()
    # expect: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_not_projected():
    enc = Projected(8, False)
    enc.eval()
    # ok: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_always_projected():
    enc = AlwaysProjected(8)
    enc.eval()
    # expect: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)


def test_never_projected():
    enc = NeverProjected(8)
    enc.eval()
    # ok: TL102
    out = enc(torch.rand(2, 5, 8))
    assert out.shape == (2, 5, 8)
