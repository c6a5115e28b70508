class AverageMeter:
    """Running average of a value reported once per step."""

    def __init__(self):
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


class StepLog:
    def __init__(self):
        self.entries = []

    def record(self, value):
        self.entries.append(value)


class GradAccumulator:
    """Sums micro-batch losses; the caller backpropagates the total."""

    def __init__(self):
        self.total = 0

    def add(self, loss):
        self.total += loss
