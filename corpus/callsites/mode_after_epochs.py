"""The mode a training loop over range(...) leaves: its body runs, so the
module is in the mode the body's last switch gives it (a helper's eval()
in the last step of each epoch), not in the mode it had before the loop."""
import torch
import torch.nn as nn
from tqdm import tqdm

net = nn.Sequential(nn.Linear(8, 16), nn.BatchNorm1d(16), nn.Dropout(0.2), nn.Linear(16, 2))
opt = torch.optim.Adam(net.parameters(), lr=1e-3)
inputs, labels = torch.randn(32, 8), torch.randint(0, 2, (32,))


def train_step():
    net.train()
    opt.zero_grad()
    loss = nn.functional.cross_entropy(net(inputs), labels)
    loss.backward()
    opt.step()
    return loss.item()


def validate():
    net.eval()
    with torch.no_grad():
        return (net(inputs).argmax(1) == labels).float().mean().item()


for epoch in range(1, 31):
    train_step()
    validate()

# expect: TL102
final_scores = net(inputs)

with torch.no_grad():
    # ok: TL102
    final_scores_no_grad = net(inputs)


def fit(model, data, epochs):
    for _ in range(epochs):
        model.train()
        for x, y in data:
            nn.functional.mse_loss(model(x), y).backward()
        model.eval()
        with torch.no_grad():
            for x, y in data:
                model(x)
    return model


def fit_then_train_again(model, data, epochs):
    for _ in range(epochs):
        model.eval()
        with torch.no_grad():
            for x, y in data:
                model(x)
        model.train()
        for x, y in data:
            nn.functional.mse_loss(model(x), y).backward()
    return model


batches = [(torch.randn(4, 8), torch.randn(4, 8)) for _ in range(3)]
clf = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
fit(clf, batches, 5)
# expect: TL102
clf_scores = clf(inputs)

reg = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
fit_then_train_again(reg, batches, 5)
# ok: TL102
reg_scores = reg(inputs)


# The same loop behind a progress bar.
probe = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.5))
for epoch in tqdm(range(3)):
    probe.train()
    nn.functional.mse_loss(probe(inputs), inputs).backward()
    probe.eval()
# expect: TL102
probe_scores = probe(inputs)
