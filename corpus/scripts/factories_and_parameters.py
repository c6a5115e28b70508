"""Loaders, criteria, class weights and models built by small factories and
passed in as parameters, as real projects write them.

What a local function returns is the fact of the value its call binds: a
loader factory that pins memory gives pinned batches, a class-weight helper
gives a known tensor, a loss factory returning `nn.CrossEntropyLoss()` gives a
cross-entropy criterion. A criterion or model arriving as a parameter takes
the facts of what every caller passes (the PyTorch quickstart layout,
`train_loop(dataloader, model, loss_fn, optimizer)`).
"""
import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.data import DataLoader


class TextClassifier(nn.Module):
    def __init__(self, vocab=20000, dim=128, n_classes=4):
        super().__init__()
        self.embed = nn.EmbeddingBag(vocab, dim)
        self.head = nn.Linear(dim, n_classes)

    def forward(self, tokens, offsets):
        return self.head(self.embed(tokens, offsets))


def make_loader(dataset, batch_size, train=True):
    return DataLoader(dataset, batch_size=batch_size, shuffle=train, num_workers=4)


def make_pinned_loader(dataset, batch_size):
    return DataLoader(dataset, batch_size=batch_size, shuffle=True, num_workers=4,
                      pin_memory=True)


def class_weights(counts):
    counts = torch.tensor(counts, dtype=torch.float32)
    return counts.sum() / (len(counts) * counts)


def build_criterion(cfg, weights=None):
    if cfg.get("label_smoothing"):
        return nn.CrossEntropyLoss(weight=weights, label_smoothing=cfg["label_smoothing"])
    return nn.CrossEntropyLoss(weight=weights)


def build_nll():
    return nn.NLLLoss()


def train_epoch(model, loader, criterion, optimizer, device):
    model.train()
    for tokens, offsets, labels in loader:
        # expect: TL306
        tokens = tokens.to(device, non_blocking=True)
        offsets, labels = offsets.to(device), labels.to(device)
        logits = model(tokens, offsets)
        # expect: TL208
        loss = criterion(F.softmax(logits, dim=1), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def train_epoch_logits(model, loader, criterion, optimizer, device):
    model.train()
    for tokens, offsets, labels in loader:
        # ok: TL306
        tokens = tokens.to(device, non_blocking=True)
        offsets, labels = offsets.to(device), labels.to(device)
        # ok: TL208
        loss = criterion(model(tokens, offsets), labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def nll_epoch(model, loader, optimizer, device):
    nll = build_nll()
    for tokens, offsets, labels in loader:
        probs = F.softmax(model(tokens.to(device), offsets.to(device)), dim=1)
        # expect: TL210
        loss = nll(probs, labels.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        log_probs = F.log_softmax(model(tokens.to(device), offsets.to(device)), dim=1)
        # ok: TL210
        loss = nll(log_probs, labels.to(device))


def main(train_set, val_set, counts, cfg):
    device = torch.device("cuda")
    model = TextClassifier().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4)
    weights = class_weights(counts)
    # expect: TL206
    weights.to(device)
    weights = weights.to(device)
    criterion = build_criterion(cfg, weights)
    loader = make_loader(train_set, 64)
    pinned = make_pinned_loader(train_set, 64)
    for epoch in range(cfg["epochs"]):
        train_epoch(model, loader, criterion, optimizer, device)
        train_epoch_logits(model, pinned, criterion, optimizer, device)
        nll_epoch(model, loader, optimizer, device)


# The PyTorch quickstart layout: the loop's parts arrive as parameters.

def train_loop(dataloader, model, loss_fn, optimizer):
    size = len(dataloader.dataset)
    model.train()
    for batch, (X, y) in enumerate(dataloader):
        pred = model(X)
        # expect: TL208
        loss = loss_fn(pred.softmax(dim=1), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


def test_loop(dataloader, model, loss_fn):
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for X, y in dataloader:
            pred = model(X)
            # ok: TL208
            test_loss += loss_fn(pred, y).item()
    return test_loss / len(dataloader)


def quickstart(training_data, test_data):
    model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 512), nn.ReLU(), nn.Linear(512, 10))
    loss_fn = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3)
    # expect: TL308
    train_dataloader = DataLoader(training_data, batch_size=64)
    # expect: TL308
    test_dataloader = DataLoader(test_data, batch_size=64)
    for t in range(10):
        train_loop(train_dataloader, model, loss_fn, optimizer)
        test_loop(test_dataloader, model, loss_fn)


# Criteria of two kinds passed to one helper: its calls are of no one kind.

def fit(model, loader, loss_fn, optimizer):
    for x, y in loader:
        probs = F.softmax(model(x), dim=1)
        # ok: TL208, TL210
        loss = loss_fn(probs, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


def two_criteria(model, loader, optimizer):
    fit(model, loader, nn.CrossEntropyLoss(), optimizer)
    fit(model, loader, nn.MultiMarginLoss(), optimizer)
