"""TL403 unstable-log-exp: fixtures.

An `expect` annotation sits before the log of a value computed in linear
space: a softmax, a sigmoid, or a sum of exponentials, as torch functions,
tensor methods, modules, or names bound to them. An `ok` annotation sits
before the fused forms, the stable manual logsumexp (the maximum subtracted
first), logs of values that are not probabilities, and logs with an epsilon
added on purpose.
"""
import torch
import torch.nn.functional as F
from torch import nn


class Policy(nn.Module):
    def __init__(self, obs, actions):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, 64), nn.Tanh(), nn.Linear(64, actions))
        self.softmax = nn.Softmax(dim=-1)
        self.log_softmax = nn.LogSoftmax(dim=-1)

    def forward(self, x):
        return self.body(x)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def contrastive_loss(sim, temperature=0.07):
    logits = sim / temperature
    # expect: TL403
    log_denominator = torch.log(torch.sum(torch.exp(logits), dim=1))
    return (log_denominator - logits.diagonal()).mean()


def energy_score(logits):
    # expect: TL403
    return -logits.exp().sum(dim=-1).log()


def mixed_chain(scores):
    # expect: TL403
    return torch.exp(scores).sum(1).log()


def policy_log_prob(policy, obs, action):
    probs = F.softmax(policy(obs), dim=-1)
    # Known miss: made-by does not follow gather() (an element selection).
    # todo-expect: TL403
    return torch.log(probs.gather(1, action.unsqueeze(1)))


def nll_from_probabilities(logits, target):
    probs = torch.softmax(logits, dim=1)
    # expect: TL403
    log_probs = probs.log()
    return F.nll_loss(log_probs, target)


def softmax_module(policy, obs):
    probs = policy.softmax(policy(obs))
    # expect: TL403
    return torch.log(probs)


def bce_by_hand(logits, target):
    # expect: TL403
    pos = torch.log(torch.sigmoid(logits))
    # expect: TL403
    neg = (-logits).sigmoid().log()
    return -(target * pos + (1 - target) * neg).mean()


def indexed_probability(logits, labels):
    p = torch.softmax(logits, -1)
    # expect: TL403
    return -torch.log(p[torch.arange(len(labels)), labels]).mean()


# ---------------------------------------------------------------------------
# Not flagged
# ---------------------------------------------------------------------------


def fused_forms(logits, target):
    # ok: TL403
    a = torch.logsumexp(logits, dim=1)
    # ok: TL403
    b = F.log_softmax(logits, dim=1)
    # ok: TL403
    c = F.logsigmoid(logits)
    return a, b, c, target


def manual_stable_logsumexp(x):
    m = x.max(dim=1, keepdim=True).values
    # ok: TL403
    return m.squeeze(1) + torch.log(torch.sum(torch.exp(x - m), dim=1))


def shifted_by_name(x):
    shifted = x - torch.amax(x, 1, keepdim=True)
    # ok: TL403
    return torch.log(torch.sum(torch.exp(shifted), 1))


def epsilon_on_purpose(logits):
    probs = F.softmax(logits, dim=1)
    # ok: TL403
    return torch.log(probs + 1e-8)


def log_of_positive_values(x):
    # ok: TL403
    a = torch.log(x.abs().sum(1))
    # ok: TL403
    b = torch.log(torch.exp(x))
    return a, b


def log_softmax_module(policy, obs):
    # ok: TL403
    return policy.log_softmax(policy(obs)).log_softmax(-1)


def log_of_counts(counts):
    # ok: TL403
    return torch.log(counts.float().sum() + 1)


def clamped_probability(logits):
    probs = torch.sigmoid(logits)
    # ok: TL403
    return torch.log(torch.clamp(probs, min=1e-6))


def numpy_like(values):
    import numpy as np
    # ok: TL403
    return np.log(np.sum(np.exp(values)))


# Issue 22, ecosystem: the logits shifted by their maximum in place before
# the exponentials (a manual logsumexp split across statements, as a
# model-parallel cross entropy does around its all-reduces).
def shifted_in_place(logits, target_logit):
    logits_max = torch.max(logits, dim=-1)[0]
    logits.sub_(logits_max.unsqueeze(dim=-1))
    exp_logits = logits.exp()
    sum_exp = exp_logits.sum(dim=-1)
    # ok: TL403
    return torch.log(sum_exp) - target_logit


def shifted_augmented(logits):
    logits -= logits.max(dim=-1, keepdim=True)[0]
    # ok: TL403
    return torch.log(torch.sum(torch.exp(logits), dim=-1))


# The shift comes after the exponentials: they may still overflow.
def shifted_too_late(logits):
    sum_exp = logits.exp().sum(dim=-1)
    logits.sub_(logits.max(dim=-1, keepdim=True)[0])
    # expect: TL403
    return torch.log(sum_exp)
