import importlib

from trainer import Trainer


def get_model(name):
    module = importlib.import_module("models." + name.lower())
    return getattr(module, name)


def main(config, train_data, valid_data):
    model = get_model(config["model"])(config["users"], config["items"])
    trainer = Trainer(config, model)
    trainer.fit(train_data, valid_data)
