import torch
import torch.nn as nn

from engine.trainer import SegTrainer


def build_trainer(model, optimizer, loader, resume=None):
    if resume is not None:
        return SegTrainer.from_checkpoint(resume, model, optimizer, loader)
    return SegTrainer(model, optimizer, loader, "checkpoints")


def main(loader, resume=None):
    model = nn.Sequential(nn.Conv2d(1, 16, 3), nn.BatchNorm2d(16), nn.ReLU(), nn.Conv2d(16, 2, 1))
    if torch.cuda.device_count() > 1:
        model = nn.DataParallel(model)
    model = model.to("cuda")
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    trainer = build_trainer(model, optimizer, loader, resume)
    trainer.fit(100)
