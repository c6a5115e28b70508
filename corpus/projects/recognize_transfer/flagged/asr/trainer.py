import torch
from torch import nn


class SupervisedTrainer:
    def __init__(self, optimizer, criterion, device):
        self.optimizer = optimizer
        self.criterion = criterion
        self.device = device

    def train(self, model: nn.Module, train_loader, valid_queue, num_epochs):
        model.to(self.device)
        for epoch in range(num_epochs):
            model.train()
            for inputs, targets, input_lengths in train_loader:
                inputs = inputs.to(self.device)
                targets = targets.to(self.device)
                outputs = model(inputs, input_lengths)
                loss = self.criterion(outputs.transpose(1, 2), targets)
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            cer = self._validate(model, valid_queue)
            print(epoch, cer)

    def _validate(self, model: nn.Module, queue):
        errors = 0
        model.eval()
        with torch.no_grad():
            while True:
                inputs, targets, input_lengths = queue.get()
                if inputs.shape[0] == 0:
                    break
                inputs = inputs.to(self.device)
                targets = targets.to(self.device)
                # The forward is the model's own method (`recognize`), of a
                # class chosen by a string in another module: no module call
                # marks this loop as a step loop.
                # todo-expect: TL302
                model.to(self.device)
                if isinstance(model, nn.DataParallel):
                    y_hats = model.module.recognize(inputs, input_lengths)
                else:
                    y_hats = model.recognize(inputs, input_lengths)
                errors += int((y_hats != targets).sum())
        return errors
