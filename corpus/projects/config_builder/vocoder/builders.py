from __future__ import print_function

__all__ = ["small"]


def small(channels=16):
    from vocoder import Vocoder
    return Vocoder(channels)
