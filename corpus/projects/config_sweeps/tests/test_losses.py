import unittest

import torch

from metric import ArcLoss, MemoryLoss, PairMiner, utils

DTYPES = [torch.float16, torch.float32, torch.float64]
DEVICE = torch.device("cuda")


class TestArcLoss(unittest.TestCase):
    def test_per_dtype(self):
        for dtype in DTYPES:
            loss_func = ArcLoss(num_classes=10, embedding_size=2)
            # ok: TL301
            embeddings = torch.randn(32, 2).to(DEVICE).type(dtype)
            # ok: TL301
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            loss = loss_func(embeddings, labels)
            loss.backward()
            self.assertTrue(loss.dtype == dtype)

    def test_per_dtype_and_margin(self):
        for dtype in DTYPES:
            for margin in [0.1, 0.3, 0.5]:
                loss_func = ArcLoss(num_classes=10, embedding_size=2, margin=margin)
                # ok: TL301
                embeddings = torch.tensor([[0.6, 0.8]] * 32, requires_grad=True, dtype=dtype).to(DEVICE)
                # ok: TL301
                labels = torch.randint(0, 10, (32,)).to(DEVICE)
                loss_func(embeddings, labels).backward()

    def test_loss_built_once(self):
        loss_func = ArcLoss(num_classes=10, embedding_size=2)
        for dtype in DTYPES:
            # expect: TL301, TL307
            embeddings = torch.randn(32, 2).to(DEVICE).type(dtype)
            # expect: TL301, TL307
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            loss_func(embeddings, labels).backward()


class TestMemoryLoss(unittest.TestCase):
    def test_queue(self):
        for dtype in DTYPES:
            loss_func = MemoryLoss(ArcLoss(10, 2), embedding_size=2)
            for _ in range(10):
                # expect: TL301, TL307
                embeddings = torch.randn(32, 2).to(DEVICE).type(dtype)
                # expect: TL301, TL307
                labels = torch.randint(0, 10, (32,)).to(DEVICE)
                loss_func(embeddings, labels).backward()


class TestPairMiner(unittest.TestCase):
    def setUp(self):
        self.loss_func = ArcLoss(10, 2)

    def test_per_dtype(self):
        for dtype in DTYPES:
            miner = PairMiner(0.5)
            # ok: TL301
            pairs = miner(torch.randn(32, 2).to(DEVICE).type(dtype))
            self.assertTrue(len(pairs) >= 32)

    def test_miner_built_once(self):
        miner = PairMiner(0.5)
        for dtype in DTYPES:
            # expect: TL301, TL307
            pairs = miner(torch.randn(32, 2).to(DEVICE).type(dtype))
            self.assertTrue(len(pairs) >= 32)

    def test_loss_of_the_fixture(self):
        for dtype in DTYPES:
            # expect: TL301, TL307
            embeddings = torch.randn(32, 2).to(DEVICE).type(dtype)
            # expect: TL301, TL307
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            self.loss_func(embeddings, labels).backward()


class TestUtils(unittest.TestCase):
    def test_logsumexp_per_dtype(self):
        for dtype in DTYPES:
            mat = torch.tensor([[-1.0, 0.0, 1.0], [3.0, 2.0, 1.0]], dtype=dtype, requires_grad=True).to(DEVICE)
            result = utils.masked_logsumexp(mat)
            # ok: TL104
            torch.mean(result).backward(retain_graph=True)
            # ok: TL301
            column = torch.zeros(mat.size(0), dtype=dtype).to(DEVICE).unsqueeze(1)
            expected = torch.logsumexp(torch.cat([mat, column], dim=1), dim=1, keepdim=True)
            self.assertTrue(torch.allclose(result, expected))

    def test_default_loss_per_dtype(self):
        for dtype in DTYPES:
            embeddings = torch.tensor([[0.6, 0.8]] * 32, requires_grad=True, dtype=dtype).to(DEVICE)
            # expect: TL301, TL307
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            utils.default_loss(embeddings, labels).backward()
