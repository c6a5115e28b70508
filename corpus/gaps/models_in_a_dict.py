"""Models kept in a dict (`self.model["generator"]`), as GAN trainers do.

The evaluation epoch puts every model of the dict in eval mode with a loop
over its keys and runs the evaluation step, whose forwards record graphs
with gradient tracking on and no backward (TL102 at each forward). The
twins: the training step (its loss is backpropagated), the same step under
no_grad, a model of the dict that was not switched (only one key was), and
a forward on the other branch of the `if` that switches the model.
"""
import torch


class Trainer:
    def __init__(self, model, criterion, optimizer, data_loader):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.data_loader = data_loader
        self.total = 0.0

    def _train_step(self, batch):
        z, y = batch
        # ok: TL102
        y_ = self.model["generator"](z)
        loss = self.criterion["mse"](y_, y)
        self.optimizer["generator"].zero_grad()
        loss.backward()
        self.optimizer["generator"].step()

    def _eval_step(self, batch):
        z, y = batch
        # expect: TL102
        y_ = self.model["generator"](z)
        # expect: TL102
        p_ = self.model["discriminator"](y_)
        self.total += self.criterion["mse"](p_, y).item()

    @torch.no_grad()
    def _eval_step_no_grad(self, batch):
        z, y = batch
        # ok: TL102
        y_ = self.model["generator"](z)
        self.total += self.criterion["mse"](y_, y).item()

    def _eval_epoch(self):
        for key in self.model.keys():
            self.model[key].eval()
        for batch in self.data_loader["dev"]:
            self._eval_step(batch)
            self._eval_step_no_grad(batch)
        for key in self.model.keys():
            self.model[key].train()

    def _sample(self, z):
        self.model["generator"].eval()
        # ok: TL102
        score = self.model["discriminator"](z)
        with torch.no_grad():
            # ok: TL102
            fake = self.model["generator"](z)
        self.model["generator"].train()
        return fake, score.mean().item()

    def _predict_silence(self, x, frozen):
        # The eval() is on the other branch: no run passes both.
        if frozen:
            self.model["spn"].eval()
            with torch.no_grad():
                # ok: TL102
                p = self.model["spn"](x)
        else:
            # ok: TL102
            p = self.model["spn"](x)
        return p

    def train(self):
        for batch in self.data_loader["train"]:
            self._train_step(batch)
        self._eval_epoch()
