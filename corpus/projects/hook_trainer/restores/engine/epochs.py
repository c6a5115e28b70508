import time


class EpochTrainer:
    """Runs one epoch of training or evaluation through the subclass's hooks."""

    def __init__(self):
        self.epochs_done = 0

    def train(self, loader):
        started = time.time()
        stats = self._train(loader)
        self.epochs_done += 1
        print(f"epoch {self.epochs_done} trained in {time.time() - started:.1f}s")
        return stats

    def test(self, loader, phase="valid"):
        stats = self._test(loader)
        print(phase, stats)
        return stats

    def _train(self, loader):
        pass

    def _test(self, loader):
        pass
