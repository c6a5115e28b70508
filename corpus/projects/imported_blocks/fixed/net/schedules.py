class LinearWarmup:
    def __init__(self, steps):
        self.steps = steps

    def __call__(self, step):
        return min(1.0, (step + 1) / self.steps)
