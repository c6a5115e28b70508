"""TL201 missing-zero-grad: fixtures.

An `expect` annotation sits before the optimizer step (`opt.step()` /
`scaler.step(opt)`) of a loop whose iteration runs a backward and a step but
never resets gradients, so each step applies the sum of all gradients so far.
An `ok` annotation sits before steps whose loop does reset, in a form a naive
check could miss: a helper called from the loop, a conditional reset for
gradient accumulation, `set_to_none`, `model.zero_grad()`, `p.grad = None`,
an LBFGS closure; and before `.step()` calls that are not optimizer steps.
Loss values are logged with `.item()` and there is no evaluation here, so
TL101 and TL102 stay silent.
"""
import torch
import torch as T
from torch import nn, optim
from torch.amp import GradScaler
from accelerate import Accelerator
from fp16_util import zero_grad
from gan_wrappers import CriticWrapper, EncoderWrapper

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self, in_features=784, num_classes=10):
        super().__init__()
        self.layers = nn.Sequential(
            nn.Flatten(), nn.Linear(in_features, 256), nn.ReLU(), nn.Linear(256, num_classes)
        )

    def forward(self, x):
        return self.layers(x)


class Generator(nn.Module):
    def __init__(self, nz=64):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(nz, 256), nn.ReLU(), nn.Linear(256, 784), nn.Tanh())

    def forward(self, z):
        return self.main(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(nn.Linear(784, 256), nn.LeakyReLU(0.2), nn.Linear(256, 1))

    def forward(self, x):
        return self.main(x.flatten(1))


class EncoderRNN(nn.Module):
    def __init__(self, vocab=1000, hidden=256):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)

    def forward(self, x):
        return self.gru(self.embedding(x))


class DecoderRNN(nn.Module):
    def __init__(self, vocab=1000, hidden=256):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden)
        self.gru = nn.GRU(hidden, hidden, batch_first=True)
        self.out = nn.Linear(hidden, vocab)

    def forward(self, y, h):
        out, h = self.gru(self.embedding(y), h)
        return self.out(out), h


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder

    def forward(self, x, y):
        _, h = self.encoder(x)
        return self.decoder(y, h)[0]


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: backward and step every batch, no reset anywhere: gradients pile up.
def no_reset_at_all(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: a reset only before the loop clears the gradients once, not every step.
def reset_only_before_loop(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    optimizer.zero_grad()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: the reset sits in the epoch loop; the step loop runs many steps between resets.
def reset_once_per_epoch(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        optimizer.zero_grad()
        total = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            loss = criterion(model(x), y)
            loss.backward()
            # expect: TL201
            optimizer.step()
            # expect: TL304
            total += loss.item()
        print(epoch, total / len(train_loader))


# Flagged: the AMP form; the finding is at `scaler.step(optimizer)`.
def scaler_step_without_reset(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        # expect: TL201
        scaler.step(optimizer)
        scaler.update()


# Flagged: `accelerator.backward(loss)` is a backward; nothing resets.
def accelerate_without_reset(train_dataloader):
    accelerator = Accelerator()
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for x, y in train_dataloader:
        loss = criterion(model(x), y)
        accelerator.backward(loss)
        # expect: TL201
        optimizer.step()


# Flagged: `torch.autograd.backward(loss)` is a backward too.
def autograd_backward_without_reset(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        torch.autograd.backward(loss)
        # expect: TL201
        optimizer.step()


# Flagged: model and optimizer are `self.` attributes bound in __init__; the method never resets.
class Trainer:
    def __init__(self, lr=1e-3):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.criterion = nn.CrossEntropyLoss()

    def fit(self, train_loader, epochs):
        self.model.train()
        for epoch in range(epochs):
            for x, y in train_loader:
                x, y = x.to(device), y.to(device)
                loss = self.criterion(self.model(x), y)
                loss.backward()
                # expect: TL201
                self.optimizer.step()


# Flagged: model, optimizer and criterion arrive as ordinary parameters.
def train(model, loader, optimizer, criterion):
    model.train()
    for inputs, targets in loader:
        inputs, targets = inputs.to(device), targets.to(device)
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: `from torch import optim` alias resolves to torch.optim.
def optim_import_alias(train_loader):
    model = Net().to(device)
    optimizer = optim.RMSprop(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: `import torch as T`; the optimizer is T.optim.Adam and the name `opt` is no hint.
def torch_alias_T(train_loader):
    net = Net().to(device)
    opt = T.optim.Adam(net.parameters(), lr=1e-3)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = T.nn.functional.cross_entropy(net(x), y)
        loss.backward()
        # expect: TL201
        opt.step()


# Flagged: `optimizer.zero_grad` without parentheses only looks the method up; it resets nothing.
def zero_grad_not_called(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: gradient clipping rescales the accumulated gradients but does not reset them.
def clipping_is_not_a_reset(train_loader, max_norm=1.0):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
        # expect: TL201
        optimizer.step()


# Flagged: a loop over parameters that touches `requires_grad` (not `.grad`) is not a reset.
def parameter_loop_not_a_reset(train_loader, frozen_prefix="layers.0"):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        for name, p in model.named_parameters():
            p.requires_grad = not name.startswith(frozen_prefix)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# Flagged: a `while` step loop is a step loop too.
def while_loop_without_reset(batches, max_steps):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    step = 0
    while step < max_steps:
        x, y = next(batches)
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()
        step += 1


# Flagged: an LBFGS closure that never resets: every closure evaluation adds to the previous gradients.
def lbfgs_closure_without_reset(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=20)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)

        def closure():
            loss = criterion(model(x), y)
            loss.backward()
            return loss

        # expect: TL201
        optimizer.step(closure)


# Flagged: a reset after the loop comes too late for every step inside it.
def reset_after_loop(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()
    optimizer.zero_grad(set_to_none=True)


# Flagged: a second training stage (fine-tuning the head) forgets the reset the first stage had.
def two_stage_second_forgets(train_loader, finetune_loader):
    model = Net().to(device)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()
    head_optimizer = torch.optim.SGD(model.layers[-1].parameters(), lr=1e-2)
    for x, y in finetune_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        head_optimizer.step()


# Flagged: two optimizers, only the discriminator is reset (`netD.zero_grad()` covers optD, built over
# netD.parameters()); the generator's gradients pile up, and optG applies their sum.
def gan_generator_never_reset(loader, nz=64):
    netG, netD = Generator(nz).to(device), Discriminator().to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = nn.BCEWithLogitsLoss()
    for real, _ in loader:
        real = real.to(device)
        b = real.size(0)
        ones = torch.ones(b, 1, device=device)
        zeros = torch.zeros(b, 1, device=device)
        netD.zero_grad()
        fake = netG(torch.randn(b, nz, device=device))
        d_loss = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
        d_loss.backward()
        # ok: TL201
        optD.step()
        g_loss = criterion(netD(fake), ones)
        g_loss.backward()
        # expect: TL201
        optG.step()


# Flagged: wrapper objects of another package that hold their network in `.net`
# (an encoder trained against a critic, as GAN-inversion code does); only the
# encoder's optimizer is reset, and the critic's gradients pile up.
def wrapped_critic_never_reset(loader, cfg):
    enc, critic = EncoderWrapper(cfg), CriticWrapper(cfg)
    opt_enc = torch.optim.Adam(enc.net.parameters(), lr=1e-4)
    opt_critic = torch.optim.Adam(critic.net.parameters(), lr=1e-4)
    for x in loader:
        z = enc.net(x)
        (critic.net(z.detach()).mean() - critic.net(x).mean()).backward()
        # expect: TL201
        opt_critic.step()
        opt_enc.zero_grad()
        (-critic.net(z).mean()).backward()
        # ok: TL201
        opt_enc.step()


# Flagged: an encoder/decoder pair with an optimizer each (the seq2seq tutorial layout); only the decoder's is
# reset, so the encoder's gradients pile up.
def seq2seq_encoder_never_reset(pairs):
    encoder, decoder = EncoderRNN().to(device), DecoderRNN().to(device)
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=0.01)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    for src, tgt_in, tgt_out in pairs:
        decoder_optimizer.zero_grad()
        _, h = encoder(src)
        logits, _ = decoder(tgt_in, h)
        loss = criterion(logits.flatten(0, 1), tgt_out.flatten())
        loss.backward()
        # expect: TL201
        encoder_optimizer.step()
        # ok: TL201
        decoder_optimizer.step()


# Todo: one optimizer over both networks, only the encoder is reset: the decoder's part of the update piles up.
# A reset that covers part of what an optimizer updates counts as a reset (it may be a frozen part).
def one_optimizer_partial_reset(pairs):
    encoder, decoder = EncoderRNN().to(device), DecoderRNN().to(device)
    optimizer = optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))
    criterion = nn.CrossEntropyLoss()
    for src, tgt_in, tgt_out in pairs:
        encoder.zero_grad()
        _, h = encoder(src)
        logits, _ = decoder(tgt_in, h)
        criterion(logits.flatten(0, 1), tgt_out.flatten()).backward()
        # todo-expect: TL201
        optimizer.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: the seq2seq tutorial's order: both optimizers reset, both step.
def seq2seq_both_reset(pairs):
    encoder, decoder = EncoderRNN().to(device), DecoderRNN().to(device)
    encoder_optimizer = optim.SGD(encoder.parameters(), lr=0.01)
    decoder_optimizer = optim.SGD(decoder.parameters(), lr=0.01)
    criterion = nn.CrossEntropyLoss()
    for src, tgt_in, tgt_out in pairs:
        encoder_optimizer.zero_grad()
        decoder_optimizer.zero_grad()
        _, h = encoder(src)
        logits, _ = decoder(tgt_in, h)
        criterion(logits.flatten(0, 1), tgt_out.flatten()).backward()
        # ok: TL201
        encoder_optimizer.step()
        # ok: TL201
        decoder_optimizer.step()


# OK: a `zero_grad(params)` helper imported from another module resets the parameters it is given.
def imported_zero_grad_helper(train_loader):
    model = Net().to(device)
    params = list(model.parameters())
    optimizer = torch.optim.AdamW(params, lr=1e-4)
    for x, y in train_loader:
        zero_grad(params)
        nn.functional.cross_entropy(model(x), y).backward()
        # ok: TL201
        optimizer.step()


# OK: a model built from the encoder and the decoder: resetting both parts resets what the optimizer updates.
def composite_model_parts_reset(pairs):
    encoder, decoder = EncoderRNN().to(device), DecoderRNN().to(device)
    model = Seq2Seq(encoder, decoder)
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for src, tgt_in, tgt_out in pairs:
        encoder.zero_grad()
        decoder.zero_grad()
        logits = model(src, tgt_in)
        criterion(logits.flatten(0, 1), tgt_out.flatten()).backward()
        # ok: TL201
        optimizer.step()


# OK: a GAN step whose networks and optimizers arrive as parameters: which reset covers which cannot be told.
def gan_step_from_parameters(loader, netG, netD, optG, optD, nz=64):
    criterion = nn.BCEWithLogitsLoss()
    for real, _ in loader:
        netD.zero_grad()
        fake = netG(torch.randn(real.size(0), nz, device=device))
        criterion(netD(real), torch.ones(real.size(0), 1)).backward()
        optD.step()
        criterion(netD(fake), torch.ones(real.size(0), 1)).backward()
        # ok: TL201
        optG.step()


# OK: the textbook order: reset, forward, backward, step.
def textbook_loop(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()


# OK: nanoGPT order: step, then `zero_grad(set_to_none=True)` at the end of the iteration.
def reset_after_step_set_to_none(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=6e-4, betas=(0.9, 0.95))
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


# OK: `model.zero_grad()` on the module resets the same gradients.
def module_zero_grad(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        model.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()


# OK: `p.grad = None` over the parameters is a reset (the fastest one).
def grad_none_loop(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        for p in model.parameters():
            p.grad = None
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()


# OK: `param.grad.zero_()` over the parameters is a reset.
def grad_zero_inplace_loop(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()
        for param in model.parameters():
            if param.grad is not None:
                param.grad.zero_()


# OK: gradient accumulation: step and reset under `if (i + 1) % accum_steps == 0:` count as a reset.
def gradient_accumulation(train_loader, accum_steps=8):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    optimizer.zero_grad()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y) / accum_steps
        loss.backward()
        if (i + 1) % accum_steps == 0:
            # ok: TL201
            optimizer.step()
            optimizer.zero_grad()


def train_step(model, optimizer, criterion, x, y):
    optimizer.zero_grad()
    loss = criterion(model(x), y)
    loss.backward()
    # expect: TL304
    return loss.item()


# OK: the reset lives in a local helper called from the loop (principle 2).
def reset_in_helper(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        train_step(model, optimizer, criterion, x, y)
        # ok: TL201
        optimizer.step()


def clear_grads(model):
    for p in model.parameters():
        p.grad = None


def forward_backward(model, criterion, x, y):
    clear_grads(model)
    loss = criterion(model(x), y)
    loss.backward()
    # expect: TL304
    return loss.item()


# OK: the reset is two local calls deep (forward_backward -> clear_grads), still part of the iteration.
def reset_two_helpers_deep(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        forward_backward(model, criterion, x, y)
        # ok: TL201
        optimizer.step()


# OK: a `self.` optimizer reset in a private method; the trainer's own method named `step` is no optimizer step.
class ResettingTrainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.criterion = nn.CrossEntropyLoss()

    def _reset(self):
        self.optimizer.zero_grad(set_to_none=True)

    def step(self, x, y):
        self._reset()
        loss = self.criterion(self.model(x), y)
        loss.backward()
        # ok: TL201
        self.optimizer.step()
        # expect: TL304
        return loss.item()

    def fit(self, train_loader):
        for x, y in train_loader:
            # ok: TL201
            self.step(x.to(device), y.to(device))


# OK: the full AMP recipe with a reset.
def amp_with_reset(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    scaler = torch.amp.GradScaler("cuda")
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        # ok: TL201
        scaler.step(optimizer)
        scaler.update()


# OK: Accelerate with `optimizer.zero_grad()`.
def accelerate_with_reset(train_dataloader):
    accelerator = Accelerator()
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    model, optimizer, train_dataloader = accelerator.prepare(model, optimizer, train_dataloader)
    for x, y in train_dataloader:
        loss = criterion(model(x), y)
        accelerator.backward(loss)
        # ok: TL201
        optimizer.step()
        optimizer.zero_grad()


# OK: LBFGS resets inside the closure, which is the documented place; the loop body has no reset of its own.
def lbfgs_closure_with_reset(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.LBFGS(model.parameters(), lr=1.0, max_iter=20)
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)

        def closure():
            optimizer.zero_grad()
            loss = criterion(model(x), y)
            loss.backward()
            return loss

        # ok: TL201
        optimizer.step(closure)


# OK: a full-batch gradient: the loop only accumulates; the single step and the reset are outside it.
def full_batch_gradient(train_loader):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    criterion = nn.CrossEntropyLoss()
    optimizer.zero_grad()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y) / len(train_loader)
        loss.backward()
    # ok: TL201
    optimizer.step()
    optimizer.zero_grad()


# OK: `env.step(...)` is not an optimizer step; the inner loop only accumulates, the episode loop steps and resets.
def actor_critic_episode_updates(env, policy, value_fn, episodes, gamma=0.99):
    params = list(policy.parameters()) + list(value_fn.parameters())
    optimizer = torch.optim.Adam(params, lr=3e-4)
    for episode in range(episodes):
        obs = torch.as_tensor(env.reset(), dtype=torch.float32, device=device)
        done = False
        while not done:
            dist = torch.distributions.Categorical(logits=policy(obs))
            action = dist.sample()
            # ok: TL201
            # expect: TL304
            next_obs, reward, done, _ = env.step(action.item())
            next_obs = torch.as_tensor(next_obs, dtype=torch.float32, device=device)
            with torch.no_grad():
                target = reward + gamma * value_fn(next_obs) * (1.0 - float(done))
            value = value_fn(obs)
            advantage = (target - value).detach()
            loss = -dist.log_prob(action) * advantage + (target - value).pow(2)
            loss.sum().backward()
            obs = next_obs
        # ok: TL201
        optimizer.step()
        optimizer.zero_grad()


def train_one_epoch(model, loader, optimizer, criterion):
    model.train()
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()


# OK: the epoch loop's own body shows only `scheduler.step()` and a call; the scheduler is no optimizer and the reset
# happens inside train_one_epoch.
def epoch_loop_with_scheduler(train_loader, epochs):
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=epochs)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        train_one_epoch(model, train_loader, optimizer, criterion)
        # ok: TL201
        scheduler.step()


# OK: per-step `lr_scheduler.step()` and `ema.step()` next to a correct optimizer step and reset.
def scheduler_and_ema_per_step(train_loader, ema):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    lr_scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=1e-3, total_steps=len(train_loader))
    criterion = nn.CrossEntropyLoss()
    for x, y in train_loader:
        x, y = x.to(device), y.to(device)
        loss = criterion(model(x), y)
        loss.backward()
        # ok: TL201
        optimizer.step()
        # ok: TL201
        lr_scheduler.step()
        # ok: TL201
        ema.step()
        optimizer.zero_grad(set_to_none=True)


# OK: the same wrappers, the critic's part reset through the module itself.
def wrapped_critic_module_reset(loader, cfg):
    enc, critic = EncoderWrapper(cfg), CriticWrapper(cfg)
    opt_enc = torch.optim.Adam(enc.net.parameters(), lr=1e-4)
    opt_critic = torch.optim.Adam(critic.net.parameters(), lr=1e-4)
    for x in loader:
        z = enc.net(x)
        critic.net.zero_grad()
        (critic.net(z.detach()).mean() - critic.net(x).mean()).backward()
        # ok: TL201
        opt_critic.step()
        opt_enc.zero_grad()
        (-critic.net(z).mean()).backward()
        # ok: TL201
        opt_enc.step()


# OK: the encoder wrapper is built around the critic object, so what its
# optimizer's reset reaches may include the critic's parameters: not told.
def wrapped_critic_handed_to_encoder(loader, cfg):
    critic = CriticWrapper(cfg)
    enc = EncoderWrapper(cfg, critic=critic)
    opt_enc = torch.optim.Adam(enc.net.parameters(), lr=1e-4)
    opt_critic = torch.optim.Adam(critic.net.parameters(), lr=1e-4)
    for x in loader:
        z = enc.net(x)
        (critic.net(z.detach()).mean() - critic.net(x).mean()).backward()
        # ok: TL201
        opt_critic.step()
        opt_enc.zero_grad()
        (-critic.net(z).mean()).backward()
        # ok: TL201
        opt_enc.step()


# OK: a GAN with two optimizers, each network reset before its own backward.
def gan_both_reset(loader, nz=64):
    netG, netD = Generator(nz).to(device), Discriminator().to(device)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = nn.BCEWithLogitsLoss()
    for real, _ in loader:
        real = real.to(device)
        b = real.size(0)
        ones = torch.ones(b, 1, device=device)
        zeros = torch.zeros(b, 1, device=device)
        netD.zero_grad()
        fake = netG(torch.randn(b, nz, device=device))
        d_loss = criterion(netD(real), ones) + criterion(netD(fake.detach()), zeros)
        d_loss.backward()
        # ok: TL201
        optD.step()
        netG.zero_grad()
        g_loss = criterion(netD(fake), ones)
        g_loss.backward()
        # ok: TL201
        optG.step()


# OK: a sweep that builds a fresh model and a fresh optimizer for every
# configuration: the new parameters start without gradients, nothing carries
# over from the previous iteration.
def width_sweep(widths, x, y):
    probes = []
    for width in widths:
        probe = nn.Sequential(nn.Linear(x.shape[1], width), nn.ReLU(), nn.Linear(width, 1))
        loss = nn.functional.mse_loss(probe(x), y)
        loss.backward()
        sgd = torch.optim.SGD(probe.parameters(), lr=0.1)
        # ok: TL201
        sgd.step()
        probes.append(probe)
    return probes


# A new optimizer over the same model in every iteration: the model's
# gradients still pile up across iterations.
def restart_optimizer_each_epoch(model, loader, epochs):
    for epoch in range(epochs):
        for x, y in loader:
            adam = torch.optim.Adam(model.parameters(), lr=1e-3)
            nn.functional.cross_entropy(model(x), y).backward()
            # expect: TL201
            adam.step()


# OK: each model of a pair is trained for one step with its own fresh
# optimizer, and each leaf that a guidance step optimises is made anew.
def one_step_each(models, batch):
    for candidate in models:
        sgd = torch.optim.SGD(candidate.parameters(), lr=0.1)
        candidate(batch).sum().backward()
        # ok: TL201
        sgd.step()


def guided_latents(unet, latents, timesteps, lr):
    for t in timesteps:
        x_in = latents.detach().clone()
        x_in.requires_grad = True
        sgd = torch.optim.SGD([x_in], lr=lr)
        unet(x_in, t).sum().backward()
        # ok: TL201
        sgd.step()
        latents = x_in.detach()
    return latents


# The same models visited again every epoch: their gradients pile up.
def one_step_each_epoch(models, batch, epochs):
    for epoch in range(epochs):
        for candidate in models:
            sgd = torch.optim.SGD(candidate.parameters(), lr=0.1)
            candidate(batch).sum().backward()
            # expect: TL201
            sgd.step()


# OK (issue 22, ecosystem): a fresh module per configuration, its trainable
# parameters gathered into a dict, a fresh SGD over the dict's values.
def trainable_update_per_case(cases, batch):
    for case in cases:
        gen = Net(**case)
        trainable = {n: p for n, p in gen.named_parameters() if p.requires_grad}
        gen(batch).sum().backward()
        sgd = torch.optim.SGD(trainable.values(), lr=1.0)
        # ok: TL201
        sgd.step()


# OK: a fresh model and optimizer per strategy, re-bound from the call
# that prepares them (model, optimizer = prepare(model, optimizer)).
def prepared_per_config(strategies, batch):
    for strategy in strategies:
        net = Net()
        optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
        net, optimizer = strategy.prepare(model=net, optimizer=optimizer)
        loss = net(batch).sum()
        loss.backward()
        # ok: TL201
        optimizer.step()


# The optimizer prepared in the loop was built once before it: gradients
# pile up across configurations.
def prepared_once(strategies, batch):
    net = Net()
    optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
    for strategy in strategies:
        net, optimizer = strategy.prepare(model=net, optimizer=optimizer)
        loss = net(batch).sum()
        loss.backward()
        # expect: TL201
        optimizer.step()


# OK: distributed autograd keeps each iteration's gradients in the context
# the iteration enters; a new context starts with none.
def remote_steps(model, x, target):
    import torch.distributed.autograd as dist_autograd
    from torch.distributed.optim import DistributedOptimizer
    dist_opt = DistributedOptimizer(torch.optim.SGD, model.parameter_rrefs(), lr=0.05)
    for i in range(2):
        with dist_autograd.context() as context_id:
            loss = nn.functional.mse_loss(model(x), target)
            loss.backward(context_id)
            # ok: TL201
            dist_opt.step(context_id)


# One context around the whole loop: the gradients pile up in it.
def remote_steps_one_context(model, x, target):
    import torch.distributed.autograd as dist_autograd
    from torch.distributed.optim import DistributedOptimizer
    dist_opt = DistributedOptimizer(torch.optim.SGD, model.parameter_rrefs(), lr=0.05)
    with dist_autograd.context() as context_id:
        for i in range(2):
            loss = nn.functional.mse_loss(model(x), target)
            loss.backward(context_id)
            # expect: TL201
            dist_opt.step(context_id)
