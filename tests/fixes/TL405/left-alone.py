import torch
import torch.nn.functional as F


# The clip's result is kept, and a comment stands between it and the
# backward: the finding stays, with no fix (no safe place is shown).
def train(model, loader, opt, max_norm):
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
        print(norm)


def train_commented(model, loader, opt):
    scaler = torch.amp.GradScaler("cuda")
    for x, y in loader:
        with torch.autocast("cuda"):
            loss = F.mse_loss(model(x), y)
        scaler.scale(loss).backward()
        # keep the updates small
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        opt.zero_grad()
