"""A PaddlePaddle training loop: nothing here is a PyTorch object.

Paddle spells its training loop much like PyTorch (`loss.backward()`,
`opt.step()`), but resets gradients with `opt.clear_grad()` and builds its
optimizer, model and loss from `paddle.*`. A value made by another framework
is never a PyTorch optimizer, module or graph tensor, so no rule applies.
"""
import paddle
import paddle.nn as nn
import paddle.nn.functional as F


class MLP(nn.Layer):
    def __init__(self, n_in=784, n_out=10):
        super().__init__()
        self.fc1 = nn.Linear(n_in, 256)
        self.fc2 = nn.Linear(256, n_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


def build_optimizer(model, lr):
    return paddle.optimizer.AdamW(learning_rate=lr, parameters=model.parameters())


def train(loader, epochs=5):
    model = MLP()
    optimizer = paddle.optimizer.Adam(learning_rate=1e-3, parameters=model.parameters())
    criterion = nn.CrossEntropyLoss()
    scaler = paddle.amp.GradScaler(init_loss_scaling=1024)
    history = []
    for epoch in range(epochs):
        model.train()
        for x, y in loader:
            logits = model(x)
            loss = criterion(F.softmax(logits, axis=1), y)
            loss.backward()
            # ok: TL201
            optimizer.step()
            optimizer.clear_grad()
            # ok: TL101
            history.append(loss)
        model.eval()
        for x, y in loader:
            # ok: TL102
            logits = model(x)
    return history
