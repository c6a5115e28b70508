import torch.nn.functional as F

from experiment import Experiment


class Runner:
    def __init__(self, model, opt):
        self.model = model
        self.opt = opt
        self.experiment: Experiment = None

    def run_loader(self, loader):
        # todo-expect: TL215
        for x, y in loader:
            loss = F.cross_entropy(self.model(x), y)
            self.opt.zero_grad()
            loss.backward()
            self.opt.step()

    def run(self, experiment: Experiment, epochs):
        self.experiment = experiment
        loaders = self.experiment.get_loaders()
        for epoch in range(epochs):
            self.run_loader(loaders["train"])
