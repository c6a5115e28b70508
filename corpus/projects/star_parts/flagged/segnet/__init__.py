from .model import SegNet
