import torch
import torch.nn as nn

from flair.evaluation import run_validation


def train(loader, dev_batch, steps_per_eval=200):
    tagger = nn.Sequential(nn.Embedding(1000, 64), nn.Dropout(0.3), nn.Linear(64, 9))
    tagger.train()
    optimizer = torch.optim.SGD(tagger.parameters(), lr=0.1)
    for step, (tokens, tags) in enumerate(loader):
        optimizer.zero_grad()
        logits = tagger(tokens)
        loss = nn.functional.cross_entropy(logits.view(-1, 9), tags.view(-1))
        loss.backward()
        optimizer.step()
        if step % steps_per_eval == 0:
            # expect: TL203
            print(step, run_validation(tagger, dev_batch))
