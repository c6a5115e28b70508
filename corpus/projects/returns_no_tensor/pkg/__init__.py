from .remote import DistributedLoss
from .trainer import ChunkedTrainer, TensorTrainer
