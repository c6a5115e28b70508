"""A marimo notebook: each cell is a function whose parameters are the
names other cells define (`torch` included), so `torch.no_grad()` in a
cell is torch's."""
import marimo

app = marimo.App()


@app.cell
def _():
    import torch
    import torch.nn as nn
    return nn, torch


@app.cell
def _(nn, torch):
    class Agent:
        def __init__(self):
            self.online = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
            self.target = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 2))
            self.target.load_state_dict(self.online.state_dict())
            self.target.eval()

        def td_target(self, reward, next_state, gamma):
            with torch.no_grad():
                # ok: TL102
                best = self.target(next_state).max(dim=1, keepdim=True)[0]
            return reward + gamma * best

        def td_target_detached(self, reward, next_state, gamma):
            # expect: TL102
            best = self.target(next_state).max(dim=1, keepdim=True)[0].detach()
            return reward + gamma * best

    return (Agent,)


if __name__ == "__main__":
    app.run()
