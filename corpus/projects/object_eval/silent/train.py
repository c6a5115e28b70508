import torch

from stego.system import StegoSystem


def fit(system, train_batches, val_batches, epochs):
    for epoch in range(epochs):
        for images, labels in train_batches:
            system.train_on_batch(images, labels)
        total = 0.0
        for images, labels in val_batches:
            total += system.validate_on_batch(images, labels)
        print(epoch, total)


def main(train_batches, val_batches):
    system = StegoSystem(16, torch.device("cuda"))
    fit(system, train_batches, val_batches, 10)


if __name__ == "__main__":
    main([], [])
