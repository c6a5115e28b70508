import torch

from ranking.model import ItemScorer


def train(steps):
    scorer = ItemScorer(100)
    opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
    history = []
    for _ in range(steps):
        # expect: TL307
        ids = torch.randint(0, 100, (16,))
        scores = scorer(ids)
        loss = scorer.ranking_loss(scores[:8], scores[8:])
        opt.zero_grad()
        loss.backward()
        opt.step()
        # expect: TL101
        history.append(loss)
    return history


def train_numbers(steps):
    scorer = ItemScorer(100)
    opt = torch.optim.SGD(scorer.parameters(), lr=0.1)
    history = []
    for _ in range(steps):
        # expect: TL307
        ids = torch.randint(0, 100, (16,))
        scores = scorer(ids)
        loss = scorer.ranking_loss(scores[:8], scores[8:])
        opt.zero_grad()
        loss.backward()
        opt.step()
        # ok: TL101
        history.append(loss.item())
        # ok: TL101
        history.append(scorer.ranking_number(scores[:8].detach(), scores[8:].detach()))
    return history
