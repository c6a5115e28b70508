"""Call-site sensitivity: a local function judged at each of its calls.

A helper that both the training step and the evaluation pass use is
evaluation code at the evaluation call: TL102 reports that call, where the
no_grad block belongs. Constant arguments at a call (`train=False`,
`set_mode(model, "eval")`) select the helper's branches, and a helper that
loops over a list of models (`for m in models: m.eval()`) switches each
model of the list it is given.
"""
import torch
from torch import nn
import torch.nn.functional as F


def make_classifier():
    return nn.Sequential(nn.Linear(40, 128), nn.BatchNorm1d(128), nn.ReLU(), nn.Dropout(0.2), nn.Linear(128, 4))


def compute_loss(model, batch):
    inputs, labels = batch
    return F.cross_entropy(model(inputs), labels)


def fit(train_loader, val_loader, epochs=3):
    model = make_classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            # ok: TL102
            loss = compute_loss(model, batch)
            loss.backward()
            optimizer.step()
        model.eval()
        total = 0.0
        for batch in val_loader:
            # the shared helper runs the eval-mode forward with gradients on here
            # expect: TL102
            total += compute_loss(model, batch).item()
        print(epoch, total)


def fit_quietly(train_loader, val_loader, epochs=3):
    model = make_classifier()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            optimizer.zero_grad()
            compute_loss(model, batch).backward()
            optimizer.step()
        model.eval()
        with torch.no_grad():
            # ok: TL102
            val = sum(compute_loss(model, batch).item() for batch in val_loader)
        print(epoch, val)


def run_epoch(model, loader, optimizer=None, train=True):
    model.train(train)
    seen, running = 0, 0.0
    for inputs, labels in loader:
        logits = model(inputs)
        loss = F.cross_entropy(logits, labels)
        if train:
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        running += loss.item() * len(labels)
        seen += len(labels)
    return running / seen


def fit_with_run_epoch(train_loader, val_loader, epochs=3):
    model = make_classifier()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(epochs):
        # ok: TL102
        train_loss = run_epoch(model, train_loader, optimizer)
        # train=False skips the backward and puts the model in eval mode
        # expect: TL102
        val_loss = run_epoch(model, val_loader, train=False)
        print(epoch, train_loss, val_loss)


def set_mode(model, mode):
    if mode == "eval":
        model.eval()
    else:
        model.train()


def set_requires_eval(models):
    for m in models:
        m.eval()


def set_requires_train(models):
    for m in models:
        m.train()


def fit_with_mode_switch(loader, probe):
    model = make_classifier()
    optimizer = torch.optim.Adam(model.parameters())
    set_mode(model, "train")
    for step, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        if step % 100 == 0:
            # only the eval branch runs here: training goes on in eval mode
            # expect: TL203
            set_mode(model, "eval")
            with torch.no_grad():
                print(model(probe).argmax(1))


def fit_with_mode_switch_back(loader, probe):
    model = make_classifier()
    optimizer = torch.optim.Adam(model.parameters())
    for step, (x, y) in enumerate(loader):
        set_mode(model, "train")
        optimizer.zero_grad()
        F.cross_entropy(model(x), y).backward()
        optimizer.step()
        if step % 100 == 0:
            # the next iteration starts with set_mode(model, "train")
            # ok: TL203
            set_mode(model, "eval")
            with torch.no_grad():
                print(model(probe).argmax(1))


def train_gan(loader, nz=16):
    netG = nn.Sequential(nn.Linear(nz, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 40))
    netD = nn.Sequential(nn.Linear(40, 64), nn.LeakyReLU(0.2), nn.Dropout(0.3), nn.Linear(64, 1))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    set_requires_train([netG, netD])
    for step, real in enumerate(loader):
        noise = torch.randn(real.size(0), nz)
        optD.zero_grad()
        # after the first evaluation netG is in eval mode on this path
        # (set_requires_eval below), and its detached output's graph is
        # never used
        # expect: TL102
        d_loss = F.softplus(-netD(real)).mean() + F.softplus(netD(netG(noise).detach())).mean()
        d_loss.backward()
        optD.step()
        optG.zero_grad()
        F.softplus(-netD(netG(noise))).mean().backward()
        optG.step()
        if step % 500 == 0:
            # both models of the list are left in eval mode
            # expect: TL203
            set_requires_eval([netG, netD])


def train_gan_restoring(loader, nz=16):
    netG = nn.Sequential(nn.Linear(nz, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 40))
    netD = nn.Sequential(nn.Linear(40, 64), nn.LeakyReLU(0.2), nn.Dropout(0.3), nn.Linear(64, 1))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    pair = [netG, netD]
    for step, real in enumerate(loader):
        set_requires_train(pair)
        noise = torch.randn(real.size(0), nz)
        optD.zero_grad()
        F.softplus(netD(netG(noise).detach()) - netD(real)).mean().backward()
        optD.step()
        optG.zero_grad()
        F.softplus(-netD(netG(noise))).mean().backward()
        optG.step()
        if step % 500 == 0:
            # ok: TL203
            set_requires_eval(pair)


def sample_images(netG, netD, noise):
    set_requires_eval([netG, netD])
    # expect: TL102
    fake = netG(noise)
    # expect: TL102
    return fake, netD(fake).sigmoid()
