import torch

from models.nets import tiny, wide

# the factories, picked by a configuration string
MODELS = {
    "tiny": tiny,
    "wide": wide,
}


def get_model(name, lr):
    # a model and its optimizer: only the first element is the model
    model = MODELS[name]()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    return model, optimizer
