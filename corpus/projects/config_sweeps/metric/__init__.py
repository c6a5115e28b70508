from metric import utils
from metric.losses import ArcLoss, MemoryLoss, PairMiner

__all__ = ["ArcLoss", "MemoryLoss", "PairMiner", "utils"]
