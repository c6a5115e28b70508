import torch.nn as nn

encoder = nn.Linear(8, 8)
decoder = nn.Linear(8, 8)

# Flagged, but no mechanical rewrite: a chained assignment, an annotated one.
encoder.requires_grad = decoder_frozen = False
decoder.requires_grad: bool = False
