import torch

from engine.runner import Runner

device = torch.device("cuda")


def validate(runner, loader):
    scores = []
    for frames, target in loader:
        frames, target = frames.to(device), target.to(device)
        with torch.no_grad():
            out, info = runner.step(frames, target, training=False)
        # ok: TL304
        scores.append(((out - target) ** 2).mean().cpu().item())
    return sum(scores) / len(scores)


def fit(runner, loader, val_loader, epochs):
    for epoch in range(epochs):
        seen = []
        for frames, target in loader:
            frames, target = frames.to(device), target.to(device)
            out, info = runner.step(frames, target, lr=3e-4)
            # expect: TL304
            seen.append(((out - target) ** 2).mean().cpu().item())
        validate(runner, val_loader)


if __name__ == "__main__":
    runner = Runner()
    fit(runner, [], [], 10)
