"""A CPU-only training script that goes through numpy: nothing is on a
device, so no copy to the host and back is a round trip (TL303).
"""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

device = torch.device("cpu")
model = nn.Linear(8, 3).to(device)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
data = torch.randn(64, 8)
labels = torch.randint(0, 3, (64,))
loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(data, labels), batch_size=8)


def to_numpy(t):
    return t.detach().cpu().numpy()


for x, y in loader:
    out = model(x)
    probs = to_numpy(F.softmax(out, dim=1))
    scores = [p.max() for p in probs]
    # ok: TL303
    w = torch.tensor(np.asarray(scores), device=device)
    # ok: TL303
    hard = torch.from_numpy(out.detach().cpu().numpy().argmax(1)).to(device)
    loss = (F.cross_entropy(out, y, reduction="none") * w).mean() + 0.0 * hard.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
