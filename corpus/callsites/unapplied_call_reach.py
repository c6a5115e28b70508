"""A call the analysis cannot apply (a helper whose mode switches it cannot
name: it switches a model it builds from a class it is handed) may switch
only the modules it can reach: what it is handed and what that holds,
`self`'s attributes, the module's globals. A model the function builds
itself and hands no code keeps its mode (TL102 after its `.eval()`); one
handed to the call, stored in an object the call is handed, or read by a
closure the call may run, may have been switched (silent).
"""
import torch
import torch.nn as nn


class Teacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.1), nn.Linear(8, 2))

    def forward(self, x):
        return self.net(x)


def evaluate(path, model_class, episodes=3):
    model = model_class()
    model.load_state_dict(torch.load(path, weights_only=True))
    model.eval()
    with torch.no_grad():
        return [model(torch.zeros(1, 4)).sum().item() for _ in range(episodes)]


class Trainer:
    def __init__(self, model):
        self.model = model

    def validate(self, path):
        evaluate(path, Teacher)
        self.model.train()


def distill(path, obs):
    teacher = Teacher()
    teacher.load_state_dict(torch.load(path, weights_only=True))
    teacher.eval()
    returns = evaluate(path, Teacher)
    # expect: TL102
    q = teacher(obs)
    return q.argmax(1), returns


def distill_handed(path, obs):
    teacher = Teacher()
    teacher.eval()
    returns = evaluate(path, Teacher, teacher)
    # ok: TL102
    q = teacher(obs)
    return q.argmax(1), returns


def distill_stored(path, obs):
    teacher = Teacher()
    trainer = Trainer(teacher)
    teacher.eval()
    trainer.validate(path)
    # ok: TL102
    q = teacher(obs)
    return q.argmax(1)


def register_optimizer(model):
    if len(list(model.parameters())) > 0:
        model.optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def keep_in_registry(registry, model):
    registry.append(model)


# Rebound to a new model, handed only to a helper that stores onto the
# model itself: the call cannot reach it.
def compare_to_reference(path, obs, make_layers):
    reference = make_layers()
    reference = nn.Sequential(*reference).cuda()
    register_optimizer(reference)
    reference.eval()
    evaluate(path, Teacher)
    # expect: TL102
    return reference(obs)


# A helper that keeps the model where the call may reach it.
def compare_registered(path, obs, registry):
    reference = Teacher()
    keep_in_registry(registry, reference)
    reference.eval()
    evaluate(path, Teacher)
    # ok: TL102
    return reference(obs)
