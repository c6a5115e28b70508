"""Statements split over several lines behave like their one-line forms.

A regression classifier trained with a helper that keeps running totals. Code
formatters (black, yapf) wrap long statements in parentheses, put one argument
per line, or leave a comment between the parenthesis and the first argument;
none of that changes what the statement does, so none of it changes the
findings.
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader


class Regressor(nn.Module):
    def __init__(self, n_in=32, n_hidden=128):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, n_hidden), nn.ReLU(), nn.Linear(n_hidden, 10))

    def forward(self, x):
        return self.body(x)


def train_epoch(model, loader, optimizer, device):
    criterion = nn.CrossEntropyLoss()
    running_loss = 0.0
    running_aux = 0.0
    running_ok = 0.0
    history = []
    for step, (inputs, targets) in enumerate(loader):
        inputs, targets = inputs.to(device), targets.to(device)
        logits = model(inputs)
        loss = criterion(
            logits,
            targets,
        )
        aux = F.mse_loss(
            logits.mean(dim=1),
            targets.float(),
        )
        optimizer.zero_grad()
        (loss + 0.1 * aux).backward()
        optimizer.step()
        # expect: TL101
        running_loss = (running_loss +
                        loss)
        # expect: TL101
        running_aux = running_aux + \
            aux
        # ok: TL101
        running_ok = (running_ok
                      # expect: TL304
                      + loss.item())
        # expect: TL101
        history.append(  # kept for the learning-curve plot
            loss
        )
        # ok: TL101
        history.append(
            aux.detach()  # a detached copy holds no graph
        )
        if (step % 100 == 0
                and step > 0):
            # ok: TL304
            print(f"step {step}: {loss.item():.4f}")
    return running_ok / max(len(loader), 1)


def softmax_probabilities_into_the_loss(model, loader, optimizer):
    criterion = nn.CrossEntropyLoss()
    for inputs, targets in loader:
        probs = F.softmax(model(inputs), dim=1)
        # expect: TL208
        loss = criterion(  # the loss is handed probabilities
            probs,
            targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct = 0
    with (
        torch.autocast("cuda", dtype=torch.bfloat16),
    ):
        for inputs, targets in loader:
            # ok: TL102
            logits = model(inputs.to(device))
            correct += (logits.argmax(1) == targets.to(device)).sum().item()
    model.train()
    return correct


def main(dataset):
    device = torch.device("cuda")
    model = Regressor().to(device)
    optimizer = torch.optim.SGD(
        model.parameters(),
        lr=0.01,
        momentum=0.9,
    )
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4, pin_memory=True)
    for epoch in range(10):
        train_epoch(model, loader, optimizer, device)
        softmax_probabilities_into_the_loss(model, loader, optimizer)
        evaluate(model, loader, device)
