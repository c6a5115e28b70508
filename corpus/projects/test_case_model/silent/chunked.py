import torch
from modelhub.mixins import HubMixin

from nets import Tagger


class ChunkedTagger(HubMixin):
    def __init__(self, features, tags):
        super().__init__()
        self.tagger = Tagger(features, tags)

    def forward(self, batches):
        outputs = []
        for batch in batches:
            outputs.append(self.tagger(batch))
        return torch.cat(outputs)
