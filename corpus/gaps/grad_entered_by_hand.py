"""A grad-disabling context entered by hand: `torch.no_grad().__enter__()`.

An evaluation script loads a trained separator, puts it in eval mode and,
instead of a `with` block, enters `torch.no_grad()` by calling its
`__enter__` once before the loop: every forward after it runs with
gradients off and records nothing. The twin enters `torch.enable_grad()`
the same way, and its forwards record a graph (TL102).
"""
import torch
import torch.nn as nn


class Separator(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        self.encode = nn.Conv1d(1, width, 16, stride=8)
        self.mask = nn.Sequential(nn.Conv1d(width, width, 1), nn.Dropout(0.1), nn.Sigmoid())
        self.decode = nn.ConvTranspose1d(width, 1, 16, stride=8)

    def forward(self, mix):
        feats = self.encode(mix)
        return self.decode(feats * self.mask(feats))


def evaluate_separator(checkpoint, mixtures):
    separator = Separator()
    separator.load_state_dict(torch.load(checkpoint, weights_only=True))
    separator.eval()
    torch.no_grad().__enter__()
    scores = []
    for mix in mixtures:
        estimate = separator(mix[None, None])
        scores.append(float(((estimate - mix) ** 2).mean()))
    return scores


def evaluate_separator_with_grad(checkpoint, mixtures):
    separator = Separator()
    separator.load_state_dict(torch.load(checkpoint, weights_only=True))
    separator.eval()
    torch.enable_grad().__enter__()
    scores = []
    for mix in mixtures:
        # expect: TL102
        estimate = separator(mix[None, None])
        scores.append(float(((estimate - mix) ** 2).mean()))
    return scores
