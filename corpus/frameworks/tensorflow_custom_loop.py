"""A TensorFlow custom training loop: `tf.GradientTape`, `apply_gradients`.

The loss is a TensorFlow tensor and the optimizer a Keras one; keeping the
losses in a Python list costs nothing like a PyTorch graph does.
"""
import tensorflow as tf


def make_model(n_classes):
    return tf.keras.Sequential([
        tf.keras.layers.Dense(128, activation="relu"),
        tf.keras.layers.Dense(n_classes),
    ])


def train(dataset, epochs=3):
    model = make_model(10)
    optimizer = tf.keras.optimizers.Adam(1e-3)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    losses = []
    total = 0.0
    for epoch in range(epochs):
        for x, y in dataset:
            with tf.GradientTape() as tape:
                logits = model(x, training=True)
                loss = loss_fn(y, logits)
            grads = tape.gradient(loss, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            # ok: TL101
            losses.append(loss)
            # ok: TL101
            total += loss
    return losses, total
