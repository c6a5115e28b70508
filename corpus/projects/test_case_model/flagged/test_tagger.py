import torch

from nets import Tagger
from testing import ProjectTestCase


class TaggerTest(ProjectTestCase):
    def setup_method(self):
        super().setup_method()
        self.tagger = Tagger(8, 4)

    def test_batches_match(self):
        batches = [torch.randn(2, 8) for _ in range(3)]
        whole = self.tagger(torch.cat(batches))
        outputs = []
        for batch in batches:
            # expect: TL106
            outputs.append(self.tagger(batch))
        assert torch.allclose(torch.cat(outputs), whole)
