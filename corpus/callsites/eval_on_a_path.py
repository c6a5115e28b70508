"""A forward that an explicit `.eval()` reaches on some path, under a test
the analysis cannot decide (a tester's attribute, a pytest parameter, an
attribute a caller sets): it runs after `.eval()` on that path, so TL102
reports it when nothing backpropagates it and gradients are on. A
`.train(flag)` whose flag nothing tells is no switch to eval mode; a
forward whose loss reaches a backward is a training step, not an
evaluation, whatever the mode; a grad-disabled context silences it.
"""
import pytest
import torch
import torch.nn as nn


def make_net():
    return nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.Dropout(0.1), nn.Linear(8, 2))


class Tester:
    is_training = True


def set_mode_somehow(model, helper):
    helper.apply_mode(model)
    model.train(helper.training)


class ModelTest:
    all_model_classes = (make_net,)

    def __init__(self):
        self.model_tester = Tester()

    # `if self.model_tester.is_training is False: model.eval()`
    def test_forward(self, x):
        model = make_net()
        if self.model_tester.is_training is False:
            model.eval()
        # expect: TL102
        return model(x)

    def test_forward_no_grad(self, x):
        model = make_net()
        if self.model_tester.is_training is False:
            model.eval()
        with torch.no_grad():
            # ok: TL102
            return model(x)

    # the other path's mode is not known (a model of a class the test
    # is handed): eval on this one
    def test_model_classes(self, x):
        for model_class in self.all_model_classes:
            model = model_class()
            model.to("cpu")
            if self.model_tester.is_training is False:
                model.eval()
            # expect: TL102
            model(x).sum().item()

    # a call that may switch the model after the test: not known
    def test_switched_after(self, x, helper):
        model = make_net()
        if self.model_tester.is_training is False:
            model.eval()
        set_mode_somehow(model, helper)
        # ok: TL102
        return model(x)

    # no switch to eval mode on any path
    def test_forward_trained(self, x):
        model = make_net()
        if self.model_tester.is_training:
            model.train()
        # ok: TL102
        return model(x)


# A pytest parameter chooses the mode: eval on one path.
@pytest.mark.parametrize("gradient_checkpointing", [False, True])
def test_parity(gradient_checkpointing):
    net = make_net()
    if gradient_checkpointing:
        net.train()
    else:
        net.eval()
    # expect: TL102
    out = net(torch.randn(2, 4))
    assert out.shape == (2, 2)


# The tricky correct one: a step whose loss reaches a backward, in either
# mode, is training, not an evaluation.
def step(net, opt, x, y, training):
    if training:
        net.train()
    else:
        net.eval()
    # ok: TL102
    loss = nn.functional.cross_entropy(net(x), y)
    loss.backward()
    opt.step()
    return loss.item()


# `m.train(flag)` with a flag nothing tells: not known, silent.
def run_with_flag(net, x, flag):
    net.train(flag)
    # ok: TL102
    return net(x)


def run_with_flag_main(flags, x):
    net = make_net()
    for f in flags:
        run_with_flag(net, x, f)


# An attribute flag a caller sets (`test()` sets is_test = True).
class Agent:
    def __init__(self):
        self.dqn = make_net()
        self.is_test = False

    def select_action(self, state):
        if self.is_test:
            self.dqn.eval()
        # expect: TL102
        return self.dqn(torch.as_tensor(state)).argmax()

    def select_action_no_grad(self, state):
        if self.is_test:
            self.dqn.eval()
        with torch.no_grad():
            # ok: TL102
            return self.dqn(torch.as_tensor(state)).argmax()

    def test(self, state):
        self.is_test = True
        action = self.select_action(state)
        action2 = self.select_action_no_grad(state)
        self.dqn.train()
        return action, action2
