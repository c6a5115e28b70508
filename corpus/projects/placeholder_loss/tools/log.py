class EpochLog:
    """Per-step values of one epoch, averaged when the epoch ends."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.generator = []
        self.critic = []

    def record(self, generator_loss, critic_loss):
        self.generator.append(generator_loss)
        self.critic.append(critic_loss)

    def means(self):
        g = sum(self.generator) / max(len(self.generator), 1)
        c = sum(self.critic) / max(len(self.critic), 1)
        return g, c
