class BaseTrainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def clear(self):
        print("step")
