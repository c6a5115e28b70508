from models.knn import ItemKNN
from trainer import Trainer


def main(config, train_data, valid_data):
    model = ItemKNN(config["users"], config["items"])
    trainer = Trainer(config, model)
    trainer.fit(train_data, valid_data)
