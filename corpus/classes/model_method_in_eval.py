"""A method of a model class of this file that runs the model's own forward
(`incremental_forward`, `score`), called on the model in eval mode with
gradients on: the same evaluation forward as `model(x)` (TL102 at the
method's call). Methods that run their forward under no_grad, that train,
or that run no forward stay silent, as does the forward's own code."""
import torch
import torch.nn as nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.GRUCell(8, 8)
        self.out = nn.Linear(8, 4)

    def forward(self, x, h):
        h = self.cell(x, h)
        return self.out(h), h

    def incremental_forward(self, x, steps):
        h = torch.zeros(x.size(0), 8)
        outs = []
        for _ in range(steps):
            h = self.cell(x, h)
            outs.append(self.out(h))
        return torch.stack(outs)

    def score(self, x, h):
        logits, _ = self.forward(x, h)
        return logits.softmax(dim=-1)

    @torch.inference_mode()
    def greedy(self, x, steps):
        return self.incremental_forward(x, steps).argmax(-1)

    def step_loss(self, x, h, y):
        logits, _ = self(x, h)
        return nn.functional.cross_entropy(logits, y)

    def hidden_size(self):
        return self.cell.hidden_size


def evaluate(x, h, steps):
    model = Decoder()
    model.load_state_dict(torch.load("decoder.pt", weights_only=True))
    model.eval()
    # expect: TL102
    samples = model.incremental_forward(x, steps)
    # expect: TL102
    probs = model.score(x, h)
    # ok: TL102
    best = model.greedy(x, steps)
    # ok: TL102
    size = model.hidden_size()
    with torch.no_grad():
        # ok: TL102
        more = model.incremental_forward(x, steps)
    return samples.tolist(), probs.tolist(), best.tolist(), size, more.tolist()


def train(loader):
    model = Decoder()
    opt = torch.optim.Adam(model.parameters())
    model.eval()  # batch statistics frozen on purpose while fine-tuning
    for x, h, y in loader:
        opt.zero_grad()
        # ok: TL102
        loss = model.step_loss(x, h, y)
        loss.backward()
        opt.step()
