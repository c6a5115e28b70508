"""TL103 hidden-state-not-detached: fixtures.

An `expect` annotation sits before a recurrent call that consumes a state and
re-binds it from its result (`out, h = rnn(x, h)`) inside a loop that
backpropagates every iteration, where nothing in the iteration detaches the
state: the next backward runs into the previous batches' graphs. An `ok`
annotation sits before the same shape where the state is detached (directly,
per element of a tuple, in place, through a local `repackage_hidden`, or
through a helper from another module that torchlint cannot see), re-created
every iteration, or carried only where no backward runs.
"""
import torch
from torch import nn

from lm_utils import repackage_hidden as imported_repackage

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class RNNModel(nn.Module):
    def __init__(self, ntoken=1000, ninp=200, nhid=200, nlayers=2):
        super().__init__()
        self.nlayers, self.nhid = nlayers, nhid
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, x, hidden):
        output, hidden = self.rnn(self.encoder(x), hidden)
        return self.decoder(output), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


class Policy(nn.Module):
    def __init__(self, obs_dim=8, hidden=64, actions=4):
        super().__init__()
        self.cell = nn.GRUCell(obs_dim, hidden)
        self.head = nn.Linear(hidden, actions)

    def forward(self, obs, h):
        h = self.cell(obs, h)
        return self.head(h), h


class DetachingRNN(nn.Module):
    """Hands its state back detached: truncation is built into the model."""

    def __init__(self, ninp=16, nhid=32):
        super().__init__()
        self.rnn = nn.GRU(ninp, nhid)
        self.out = nn.Linear(nhid, ninp)

    def forward(self, x, h):
        y, h = self.rnn(x, h)
        return self.out(y), h.detach()


class DetachingInputRNN(nn.Module):
    """Detaches the state it is given: each call starts a new graph."""

    def __init__(self, ninp=16, nhid=32):
        super().__init__()
        self.rnn = nn.GRU(ninp, nhid)

    def forward(self, x, state):
        state = state.detach()
        return self.rnn(x, state)


def repackage_hidden(h):
    """Detaches hidden states from their history (recursively for tuples)."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def move_hidden(h, dev):
    """Moves the state; keeps its history."""
    return tuple(v.to(dev) for v in h)


def detach_in_place(h):
    for v in h:
        v.detach_()


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the state is created once and fed back batch after batch; the second backward fails (or, with
# retain_graph, every batch backpropagates through all earlier ones).
def lm_without_detach(batches, bsz, ntokens):
    model = RNNModel(ntokens).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=20)
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        optimizer.zero_grad()
        # expect: TL103
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        optimizer.step()


# Flagged: an LSTM's (h, c) tuple state, unpacked on both sides.
def lstm_tuple_state(batches, h, c):
    lstm = nn.LSTM(32, 64, batch_first=True).to(device)
    head = nn.Linear(64, 1).to(device)
    optimizer = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()))
    for x, y in batches:
        optimizer.zero_grad()
        # expect: TL103
        out, (h, c) = lstm(x, (h, c))
        loss = nn.functional.mse_loss(head(out[:, -1]), y)
        loss.backward()
        optimizer.step()


# Flagged: a GRU cell updated step by step with a backward at every step (online training).
def online_gru_cell(stream, hidden_size=64):
    cell = nn.GRUCell(16, hidden_size).to(device)
    readout = nn.Linear(hidden_size, 16).to(device)
    optimizer = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=1e-3)
    h = torch.zeros(1, hidden_size, device=device)
    for x, target in stream:
        # expect: TL103
        h = cell(x, h)
        loss = nn.functional.mse_loss(readout(h), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Flagged: the state lives across batches of the outer loop while the inner loop unrolls time steps; the batch
# loop's backward reaches every earlier batch.
def unrolled_time_loop_state_across_batches(batches, hidden_size=64):
    cell = nn.LSTMCell(16, hidden_size).to(device)
    optimizer = torch.optim.Adam(cell.parameters(), lr=1e-3)
    h = torch.zeros(8, hidden_size, device=device)
    c = torch.zeros(8, hidden_size, device=device)
    for seq, target in batches:
        for t in range(seq.size(0)):
            # expect: TL103
            h, c = cell(seq[t], (h, c))
        loss = nn.functional.mse_loss(h, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# Flagged: the state kept on the trainer object (`self.hidden`) is fed back the same way.
class TBPTTTrainer:
    def __init__(self, ntokens, bsz):
        self.model = RNNModel(ntokens).to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=20)
        self.criterion = nn.CrossEntropyLoss()
        self.hidden = self.model.init_hidden(bsz)

    def train_epoch(self, batches):
        self.model.train()
        for data, targets in batches:
            self.optimizer.zero_grad()
            # expect: TL103
            output, self.hidden = self.model(data, self.hidden)
            loss = self.criterion(output.flatten(0, 1), targets.flatten())
            loss.backward()
            self.optimizer.step()


# Flagged: moving the state to the device every iteration keeps its history; only a detach cuts it.
def moved_but_not_detached(batches, bsz, ntokens):
    model = RNNModel(ntokens).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=20)
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        hidden = move_hidden(hidden, device)
        optimizer.zero_grad()
        # expect: TL103
        output, hidden = model(data.to(device), hidden)
        criterion(output.flatten(0, 1), targets.flatten()).backward()
        optimizer.step()


# Flagged: a recurrent policy in a `while` loop (A2C-style per-step update), state fed back every step.
def recurrent_policy_per_step(env, steps):
    policy = Policy().to(device)
    optimizer = torch.optim.Adam(policy.parameters(), lr=3e-4)
    h = torch.zeros(1, 64, device=device)
    obs = torch.as_tensor(env.reset(), device=device).unsqueeze(0)
    step = 0
    while step < steps:
        # expect: TL103
        logits, h = policy(obs, h)
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        # expect: TL304
        next_obs, reward, done, _ = env.step(action.item())
        loss = -dist.log_prob(action) * reward
        optimizer.zero_grad()
        loss.sum().backward()
        optimizer.step()
        obs = torch.as_tensor(next_obs, device=device).unsqueeze(0)
        step += 1


# Flagged: a plain nn.GRU stepped over chunks of one long sequence with `torch.autograd.backward`.
def gru_chunks_autograd_backward(chunks, targets):
    gru = nn.GRU(16, 32).to(device)
    head = nn.Linear(32, 1).to(device)
    optimizer = torch.optim.SGD(list(gru.parameters()) + list(head.parameters()), lr=0.1)
    state = torch.zeros(1, 4, 32, device=device)
    for chunk, target in zip(chunks, targets):
        # expect: TL103
        out, state = gru(chunk, state)
        loss = nn.functional.mse_loss(head(out), target)
        optimizer.zero_grad()
        torch.autograd.backward(loss)
        optimizer.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the word-language-model recipe: `hidden = repackage_hidden(hidden)`, a local helper that detaches
# (recursively for the (h, c) tuple).
def lm_with_repackage(batches, bsz, ntokens):
    model = RNNModel(ntokens).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=20)
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        # ok: TL103
        output, hidden = model(data, hidden)
        loss = criterion(output.view(-1, ntokens), targets)
        loss.backward()
        optimizer.step()


# OK: a helper imported from another module (awd-lstm-lm keeps repackage_hidden in utils.py); its body is not
# in the file, so it may well detach.
def lm_with_imported_helper(batches, bsz, ntokens):
    model = RNNModel(ntokens).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=20)
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        hidden = imported_repackage(hidden)
        optimizer.zero_grad()
        # ok: TL103
        output, hidden = model(data, hidden)
        criterion(output.flatten(0, 1), targets.flatten()).backward()
        optimizer.step()


# OK: a single tensor state detached at the top of each iteration.
def gru_cell_detached(stream, hidden_size=64):
    cell = nn.GRUCell(16, hidden_size).to(device)
    readout = nn.Linear(hidden_size, 16).to(device)
    optimizer = torch.optim.Adam(list(cell.parameters()) + list(readout.parameters()), lr=1e-3)
    h = torch.zeros(1, hidden_size, device=device)
    for x, target in stream:
        h = h.detach()
        # ok: TL103
        h = cell(x, h)
        loss = nn.functional.mse_loss(readout(h), target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# OK: each element of the tuple state detached with a generator, after the backward.
def lstm_detach_tuple_after_step(batches, h, c):
    lstm = nn.LSTM(32, 64, batch_first=True).to(device)
    head = nn.Linear(64, 1).to(device)
    optimizer = torch.optim.Adam(list(lstm.parameters()) + list(head.parameters()))
    state = (h, c)
    for x, y in batches:
        optimizer.zero_grad()
        # ok: TL103
        out, state = lstm(x, state)
        loss = nn.functional.mse_loss(head(out[:, -1]), y)
        loss.backward()
        optimizer.step()
        state = tuple(s.detach() for s in state)


# OK: both parts detached explicitly, as a tuple assignment.
def lstm_detach_both_parts(batches, h, c):
    lstm = nn.LSTM(32, 64, batch_first=True).to(device)
    optimizer = torch.optim.Adam(lstm.parameters())
    for x, y in batches:
        h, c = h.detach(), c.detach()
        optimizer.zero_grad()
        # ok: TL103
        out, (h, c) = lstm(x, (h, c))
        nn.functional.mse_loss(out, y).backward()
        optimizer.step()


# OK: detached in place, element by element, through a local helper.
def lm_detach_in_place(batches, bsz, ntokens):
    model = RNNModel(ntokens).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=20)
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(bsz)
    for data, targets in batches:
        detach_in_place(hidden)
        optimizer.zero_grad()
        # ok: TL103
        output, hidden = model(data, hidden)
        criterion(output.flatten(0, 1), targets.flatten()).backward()
        optimizer.step()


# OK: the legacy `.data` form cuts the history too.
def legacy_data_detach(stream, hidden_size=64):
    cell = nn.GRUCell(16, hidden_size).to(device)
    optimizer = torch.optim.SGD(cell.parameters(), lr=0.1)
    h = torch.zeros(1, hidden_size, device=device)
    for x, target in stream:
        # ok: TL103
        h = cell(x, h)
        loss = nn.functional.mse_loss(h, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        h = h.data


# OK: a fresh state for every batch; the time loop carries it only within the batch, before the one backward.
def fresh_state_per_batch(batches, hidden_size=64):
    cell = nn.LSTMCell(16, hidden_size).to(device)
    optimizer = torch.optim.Adam(cell.parameters(), lr=1e-3)
    for seq, target in batches:
        h = torch.zeros(seq.size(1), hidden_size, device=device)
        c = torch.zeros(seq.size(1), hidden_size, device=device)
        for t in range(seq.size(0)):
            # ok: TL103
            h, c = cell(seq[t], (h, c))
        loss = nn.functional.mse_loss(h, target)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


# OK: evaluation carries the state across batches, but nothing backpropagates (and it runs under no_grad).
@torch.no_grad()
def evaluate_lm(model, batches, bsz, ntokens):
    model.eval()
    criterion = nn.CrossEntropyLoss()
    hidden = model.init_hidden(bsz)
    total = 0.0
    for data, targets in batches:
        # ok: TL103
        output, hidden = model(data, hidden)
        total += criterion(output.view(-1, ntokens), targets).item()
    return total


# OK: sampling text token by token: no backward in the loop.
def generate(model, first_token, steps):
    hidden = model.init_hidden(1)
    token = first_token
    words = []
    with torch.no_grad():
        for _ in range(steps):
            # ok: TL103
            logits, hidden = model(token, hidden)
            token = torch.multinomial(logits.squeeze().softmax(-1), 1).view(1, 1)
            words.append(token.item())
    return words


# OK: the model detaches the state it returns (DetachingRNN.forward), so nothing needs to in the loop.
def model_detaches_its_state(batches, h):
    model = DetachingRNN().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in batches:
        optimizer.zero_grad()
        # ok: TL103
        out, h = model(x, h)
        nn.functional.mse_loss(out, y).backward()
        optimizer.step()


# OK: the model detaches the state it is given (DetachingInputRNN.forward).
def model_detaches_its_input(batches, h):
    model = DetachingInputRNN().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in batches:
        optimizer.zero_grad()
        # ok: TL103
        out, h = model(x, h)
        nn.functional.mse_loss(out, y).backward()
        optimizer.step()


# OK: the loop target re-binds the state every iteration (it arrives with each batch), so it is not carried.
def state_from_the_batch(batches):
    lstm = nn.LSTM(32, 64).to(device)
    optimizer = torch.optim.Adam(lstm.parameters())
    for x, y, state in batches:
        optimizer.zero_grad()
        # ok: TL103
        out, state = lstm(x, state)
        nn.functional.mse_loss(out, y).backward()
        optimizer.step()
