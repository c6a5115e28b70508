import torch

from asr.models import build_model
from asr.trainer import SupervisedTrainer


def main(name, train_loader, valid_queue):
    device = torch.device("cuda")
    model = build_model(name, 80, 2000)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    criterion = torch.nn.CrossEntropyLoss()
    trainer = SupervisedTrainer(optimizer, criterion, device)
    trainer.train(model, train_loader, valid_queue, 20)


if __name__ == "__main__":
    main("las", [], None)
