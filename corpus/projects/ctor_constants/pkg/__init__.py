from .layers import Quantizer
