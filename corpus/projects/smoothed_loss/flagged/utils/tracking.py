class Smoothed:
    """Exponential moving average for a progress bar."""

    def __init__(self, decay=0.98):
        self.decay = decay
        self.value = None

    def update(self, val):
        if self.value is None:
            self.value = val
        else:
            self.value = self.decay * self.value + (1 - self.decay) * val
        return self.value


class History:
    def __init__(self):
        self.points = []

    def update(self, val):
        self.points.append(val)

    def last(self, n=10):
        return self.points[-n:]
