class BaseTrainer:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt

    def clear(self):
        self.opt.zero_grad(set_to_none=True)
