from .scalar import ScalarCodec
