"""Optimizers and models from imported classes and factories, known by their use.

`OpenAIAdam` (pytorch-pretrained-bert) and a project's own `build_model(cfg)`
are not names PyTorch defines, but the code shows what they are: the optimizer
is built over a model's parameters and stepped after a backward; the model's
parameters are handed to an optimizer. Two optimizers over two models'
parameters reset and step independently.
"""
import torch
from pytorch_pretrained_bert import OpenAIAdam
from torch_ema import ExponentialMovingAverage

from project.models import build_model


def finetune(cfg, loader):
    model = build_model(cfg)
    optimizer = OpenAIAdam(model.parameters(), lr=6.25e-5, warmup=0.002, t_total=1000)
    criterion = torch.nn.CrossEntropyLoss()
    for inputs, labels in loader:
        loss = criterion(model(inputs), labels)
        loss.backward()
        # expect: TL201
        optimizer.step()


def finetune_ok(cfg, loader):
    model = build_model(cfg)
    optimizer = OpenAIAdam(model.parameters(), lr=6.25e-5)
    ema = ExponentialMovingAverage(model.parameters(), decay=0.995)
    criterion = torch.nn.CrossEntropyLoss()
    for inputs, labels in loader:
        optimizer.zero_grad()
        loss = criterion(model(inputs), labels)
        loss.backward()
        # ok: TL201
        optimizer.step()
        # ok: TL201
        ema.step()


def train_gan(cfg, loader):
    generator = build_model(cfg.generator)
    discriminator = build_model(cfg.discriminator)
    g_opt = OpenAIAdam(generator.parameters(), lr=2e-4)
    d_opt = OpenAIAdam(discriminator.parameters(), lr=2e-4)
    for real in loader:
        d_opt.zero_grad()
        fake = generator(torch.randn(real.size(0), 128))
        d_loss = discriminator(fake.detach()).mean() - discriminator(real).mean()
        d_loss.backward()
        # ok: TL201
        d_opt.step()
        g_loss = -discriminator(fake).mean()
        g_loss.backward()
        # expect: TL201
        g_opt.step()


def train_gan_ok(cfg, loader):
    generator = build_model(cfg.generator)
    discriminator = build_model(cfg.discriminator)
    g_opt = OpenAIAdam(generator.parameters(), lr=2e-4)
    d_opt = OpenAIAdam(discriminator.parameters(), lr=2e-4)
    for real in loader:
        d_opt.zero_grad()
        fake = generator(torch.randn(real.size(0), 128))
        d_loss = discriminator(fake.detach()).mean() - discriminator(real).mean()
        d_loss.backward()
        # ok: TL201
        d_opt.step()
        g_opt.zero_grad()
        g_loss = -discriminator(fake).mean()
        g_loss.backward()
        # ok: TL201
        g_opt.step()
