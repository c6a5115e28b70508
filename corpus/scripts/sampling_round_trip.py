"""Sampling from a character model at the top level of a script (a
notebook's cells): the forward's summary is made after the module code
first reaches the loop, so what the loop hands the helper is known only in
a later pass. The helper copies the device logits to the host; the token it
picks goes back to the device every step (TL303)."""
import numpy as np
import torch
from torch import nn


class CharRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.project = nn.Linear(8, 8)

    def forward(self, x, hs=None):
        out = self.project(x)
        return out.view(-1, 8), hs


def pick_top_n(preds, top_n=5):
    top_pred_prob, top_pred_label = torch.topk(preds, top_n, 1)
    top_pred_label = top_pred_label.squeeze(0).cpu().numpy()
    return np.random.choice(top_pred_label, size=1)


model = CharRNN().cuda()
model_input = torch.zeros(1, 8).cuda()
state = None
for i in range(30):
    out, state = model(model_input, state)
    pred = pick_top_n(out.data)
    model_input = torch.LongTensor(pred)[None]
    # expect: TL303
    model_input = model_input.cuda()
