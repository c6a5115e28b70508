import torch
import torch.nn as nn

from infer import Scorer, evaluating, run, run_guarded, run_train, training


def build():
    return nn.Sequential(nn.Linear(16, 32), nn.Dropout(0.1), nn.ReLU(), nn.Linear(32, 4))


def main(path, x):
    model = build()
    model.load_state_dict(torch.load(path, weights_only=True))
    model.eval()
    scorer = Scorer(0.5)
    labels = run(model, x)
    guarded = run_guarded(model, x)
    flags = scorer.score(model, x)
    sampler = build()
    sampler.load_state_dict(torch.load(path, weights_only=True))
    sampler.train()
    samples = [run_train(sampler, x) for _ in range(8)]
    return labels, guarded, flags, samples


def embed(path, x):
    # `evaluating` (infer.py) puts the model in eval mode: its forward here
    # records a graph for nothing
    encoder = build()
    encoder.load_state_dict(torch.load(path, weights_only=True))
    evaluating(encoder)
    # expect: TL102
    return encoder(x).mean(0)


def embed_mc(path, x):
    # `training` puts it back in train mode (dropout on, on purpose)
    encoder = build()
    encoder.load_state_dict(torch.load(path, weights_only=True))
    evaluating(encoder)
    training(encoder)
    # ok: TL102
    return encoder(x).mean(0)
