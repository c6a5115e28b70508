from models.mf import MatrixFactorization
from trainer import Trainer


def main(config, train_data, valid_data, test_data):
    model = MatrixFactorization(config["users"], config["items"])
    trainer = Trainer(config, model)
    trainer.fit(train_data, valid_data)
    print(trainer.evaluate(test_data))
