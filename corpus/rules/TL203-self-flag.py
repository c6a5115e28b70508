"""TL203 eval-mode-not-restored: a mode flag on `self` that the caller sets.

An agent keeps `self.is_test`: `train()` stores False before its loop,
`test()` stores True, and `select_action` switches the network to eval mode
only under `if self.is_test:` (as reinforcement-learning agents do to turn
off noisy layers or dropout while testing). Called from `train()`, whose
flag is False at the call, the switch never runs: no finding in the training
loop. The twin evaluates inside the training loop: `evaluate()` sets the flag
and runs episodes through `select_action`, but neither clears the flag nor
switches the network back, so every later step of the training loop trains in
eval mode: a finding at the call of `evaluate()`, and at `select_action` in
the loop, which switches to eval mode again under the flag `evaluate()` left
set.
"""
import torch
from torch import nn, optim


class Network(nn.Module):
    def __init__(self, obs_dim, action_dim):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(obs_dim, 128), nn.ReLU(), nn.Dropout(0.1), nn.Linear(128, action_dim))

    def forward(self, x):
        return self.layers(x)


class Agent:
    def __init__(self, env, obs_dim, action_dim):
        self.env = env
        self.dqn = Network(obs_dim, action_dim)
        self.optimizer = optim.Adam(self.dqn.parameters())
        self.is_test = False

    def select_action(self, state):
        if self.is_test:
            self.dqn.eval()
        with torch.no_grad():
            action = self.dqn(torch.as_tensor(state, dtype=torch.float32)).argmax()
        return action.item()

    def update_model(self, states, targets):
        loss = nn.functional.mse_loss(self.dqn(states), targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def train(self, num_frames, batches):
        self.is_test = False
        state = self.env.reset()
        for frame_idx in range(num_frames):
            # ok: TL203
            action = self.select_action(state)
            state, reward, done = self.env.step(action)
            states, targets = batches.sample()
            self.update_model(states, targets)

    def test(self):
        self.is_test = True
        state = self.env.reset()
        done = False
        while not done:
            action = self.select_action(state)
            state, reward, done = self.env.step(action)
        self.dqn.train()


class AgentEvalInTraining:
    def __init__(self, env, obs_dim, action_dim):
        self.env = env
        self.dqn = Network(obs_dim, action_dim)
        self.optimizer = optim.Adam(self.dqn.parameters())
        self.is_test = False

    def select_action(self, state):
        if self.is_test:
            self.dqn.eval()
        with torch.no_grad():
            action = self.dqn(torch.as_tensor(state, dtype=torch.float32)).argmax()
        return action.item()

    def update_model(self, states, targets):
        loss = nn.functional.mse_loss(self.dqn(states), targets)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def evaluate(self):
        self.is_test = True
        state = self.env.reset()
        done = False
        while not done:
            action = self.select_action(state)
            state, reward, done = self.env.step(action)

    def train(self, num_frames, batches):
        self.is_test = False
        state = self.env.reset()
        for frame_idx in range(num_frames):
            # expect: TL203
            action = self.select_action(state)
            state, reward, done = self.env.step(action)
            states, targets = batches.sample()
            self.update_model(states, targets)
            if frame_idx % 1000 == 0:
                # expect: TL203
                self.evaluate()
