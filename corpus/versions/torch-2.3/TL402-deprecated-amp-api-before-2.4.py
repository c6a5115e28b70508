"""TL402 deprecated-amp-api under torch-version 2.3 (./torchlint.toml).

The `torch.cuda.amp` / `torch.cpu.amp` entry points were deprecated in
PyTorch 2.4; code that must still run on 2.3 may keep them, so nothing
here is reported by TL402. Below 2.6, TL501 reports a bare `torch.load`.
"""
import torch
from torch.cuda.amp import GradScaler, autocast, custom_fwd

# ok: TL402
scaler = GradScaler()
# ok: TL402
legacy = torch.cuda.amp.GradScaler(init_scale=1024.0)


def forward(model, x):
    # ok: TL402
    with autocast():
        return model(x)


def forward_cpu(model, x):
    # ok: TL402
    with torch.cpu.amp.autocast():
        return model(x)


class Op(torch.autograd.Function):
    @staticmethod
    # ok: TL402
    @custom_fwd(cast_inputs=torch.float32)
    def forward(ctx, x):
        return x


def restore(path):
    # expect: TL501
    return torch.load(path)
