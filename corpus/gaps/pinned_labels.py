"""A frozen evaluation module run on a label batch that passes through pinned memory.

A metric draws images from a class-conditional generator: a small wrapper
module holds a copy of the generator, draws its own latents with
torch.randn and takes a batch of class labels. The metric puts the wrapper
in eval mode and freezes it (`.eval().requires_grad_(False)`), then feeds it
labels built from a numpy array, copied into pinned memory and moved to the
device. Nothing in that forward requires grad (a pinned copy of a tensor
requires grad only when the tensor does), so no graph is recorded and there
is nothing to report. The twin forgets to freeze the wrapper: its layers
still require grad, and the eval-mode forward records a graph no backward
uses (TL102).
"""
import numpy as np
import torch
import torch.nn as nn


class ConditionalGenerator(nn.Module):
    def __init__(self, latent=16, classes=10):
        super().__init__()
        self.embed = nn.Embedding(classes, latent)
        self.body = nn.Sequential(nn.Linear(latent, 64), nn.BatchNorm1d(64), nn.ReLU(), nn.Linear(64, 64))

    def forward(self, z, labels):
        return self.body(z * self.embed(labels))


class LabelSampler(nn.Module):
    def __init__(self, generator, latent=16):
        super().__init__()
        self.generator = generator
        self.latent = latent

    def forward(self, labels):
        z = torch.randn([labels.shape[0], self.latent], device=labels.device)
        return self.generator(z, labels)


def image_statistics(generator, num_batches, batch_size, device):
    sampler = LabelSampler(generator)
    sampler.eval().requires_grad_(False).to(device)
    stats = []
    for _ in range(num_batches):
        labels = np.random.randint(0, 10, size=batch_size)
        labels = torch.from_numpy(labels).pin_memory().to(device)
        images = sampler(labels)
        stats.append(images.mean().item())
    return sum(stats) / len(stats)


def image_statistics_unfrozen(generator, num_batches, batch_size, device):
    sampler = LabelSampler(generator)
    sampler.eval().to(device)
    stats = []
    for _ in range(num_batches):
        labels = np.random.randint(0, 10, size=batch_size)
        labels = torch.from_numpy(labels).pin_memory().to(device)
        # expect: TL102
        images = sampler(labels)
        stats.append(images.mean().item())
    return sum(stats) / len(stats)
