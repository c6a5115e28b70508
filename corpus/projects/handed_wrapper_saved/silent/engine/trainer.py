import torch
import torch.nn as nn
import torch.nn.functional as F

from engine import checkpoint


class SegTrainer:
    def __init__(self, model, optimizer, loader, checkpoint_dir, epoch=0):
        self.model = model
        self.optimizer = optimizer
        self.loader = loader
        self.checkpoint_dir = checkpoint_dir
        self.epoch = epoch

    @classmethod
    def from_checkpoint(cls, path, model, optimizer, loader):
        state = torch.load(path, map_location="cpu")
        model.load_state_dict(state["model_state_dict"])
        optimizer.load_state_dict(state["optimizer_state_dict"])
        return cls(model, optimizer, loader, "checkpoints", epoch=state["epoch"])

    def fit(self, epochs):
        for _ in range(self.epoch, epochs):
            self.model.train()
            for x, y in self.loader:
                loss = F.cross_entropy(self.model(x.cuda()), y.cuda())
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
            self.epoch += 1
            self._save_checkpoint()

    def _save_checkpoint(self):
        # the bare model's keys, whether or not train.py wrapped it
        if isinstance(self.model, nn.DataParallel):
            state_dict = self.model.module.state_dict()
        else:
            # ok: TL504
            state_dict = self.model.state_dict()
        checkpoint.save_checkpoint({
            "epoch": self.epoch,
            "model_state_dict": state_dict,
            "optimizer_state_dict": self.optimizer.state_dict(),
        }, self.checkpoint_dir)
