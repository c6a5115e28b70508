import torch

import energylib
from losses.terms import weighted


def run(params, loader, epochs=1):
    opt = torch.optim.SGD(params, lr=0.1)
    scores = []
    for epoch in range(epochs):
        for batch in loader:
            opt.zero_grad()
            energy = energylib.evaluate(params, batch)
            loss = weighted(energy, 0.5).mean()
            loss.backward()
            opt.step()
            # expect: TL101
            scores.append(energy)
    return scores
