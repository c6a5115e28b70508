from collections import defaultdict

import torch

from detect.losses import make_criterion, make_plain


class Detector(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body = torch.nn.Linear(16, 8)
        self.boxes = torch.nn.Linear(8, 4)
        self.classes = torch.nn.Linear(8, 3)

    def forward(self, x):
        h = self.body(x).relu()
        return self.boxes(h), self.classes(h)


class DetectorTrainer:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
        self.criterion = make_criterion(5.0)
        self.plain_criterion = make_plain()

    def step(self, images, boxes, labels):
        self.optimizer.zero_grad()
        pred_boxes, logits = self.model(images)
        loss, terms = self.criterion(pred_boxes, logits, boxes, labels)
        loss.backward()
        self.optimizer.step()
        return terms

    def plain_step(self, images, boxes, labels):
        self.optimizer.zero_grad()
        pred_boxes, logits = self.model(images)
        loss, terms = self.plain_criterion(pred_boxes, logits, boxes, labels)
        loss.backward()
        self.optimizer.step()
        return terms

    def epoch(self, loader):
        totals = defaultdict(float)
        for images, boxes, labels in loader:
            terms = self.step(images, boxes, labels)
            for name, value in terms.items():
                # expect: TL101
                totals[name] += value * images.shape[0]
        return totals

    def plain_epoch(self, loader):
        totals = defaultdict(float)
        for images, boxes, labels in loader:
            terms = self.plain_step(images, boxes, labels)
            for name, value in terms.items():
                # ok: TL101
                totals[name] += value * images.shape[0]
        return totals

    def detached_epoch(self, loader):
        totals = defaultdict(float)
        for images, boxes, labels in loader:
            terms = self.step(images, boxes, labels)
            for name, value in terms.items():
                # ok: TL101
                totals[name] += value.detach() * images.shape[0]
        return totals
