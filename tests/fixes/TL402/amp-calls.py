import torch
import torch as T


@torch.cuda.amp.custom_fwd
def forward(ctx, x):
    return x


@torch.cuda.amp.custom_bwd()
def backward(ctx, g):
    return g


@torch.cuda.amp.custom_fwd(cast_inputs=torch.float32)
def forward32(ctx, x):
    return x


def train(model, loader, opt):
    scaler = torch.cuda.amp.GradScaler(2.0 ** 16)
    cpu_scaler = T.cpu.amp.GradScaler()
    for x in loader:
        with torch.cuda.amp.autocast(enabled=True, dtype=torch.float16):
            loss = model(x)
        with T.cpu.amp.autocast():
            pass
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
    return cpu_scaler
