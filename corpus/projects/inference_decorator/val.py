import torch

from utils.torch_utils import plain_decorator, smart_inference_mode


@smart_inference_mode()
def run(model, loader):
    model.eval()
    correct = 0
    for images, labels in loader:
        # ok: TL102
        preds = model(images)
        correct += (preds.argmax(1) == labels).sum().item()
    return correct


@plain_decorator()
def run_logged(model, loader):
    model.eval()
    correct = 0
    for images, labels in loader:
        # expect: TL102
        preds = model(images)
        correct += (preds.argmax(1) == labels).sum().item()
    return correct


if __name__ == "__main__":
    net = torch.nn.Linear(4, 2)
    data = [(torch.randn(3, 4), torch.tensor([0, 1, 0]))]
    print(run(net, data), run_logged(net, data))
