from .base import Attack

__all__ = ["Attack"]
