"""PyTorch training fed by a `tf.data` pipeline: the TensorFlow values are not
PyTorch objects, the PyTorch ones still are.
"""
import tensorflow as tf
import torch
from torch import nn


def train(records, model, epochs=2):
    # Keras' optimizer object, used only for its learning-rate schedule.
    keras_opt = tf.keras.optimizers.SGD(learning_rate=0.1)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    losses = []
    dataset = tf.data.TFRecordDataset(records).batch(32)
    for epoch in range(epochs):
        for batch in dataset.as_numpy_iterator():
            x = torch.from_numpy(batch["x"])
            y = torch.from_numpy(batch["y"])
            loss = criterion(model(x), y)
            loss.backward()
            # expect: TL201
            optimizer.step()
            # ok: TL201
            keras_opt.step()
            # expect: TL101
            losses.append(loss)
    return [l.item() for l in losses]
