from vocoder.net import Vocoder
