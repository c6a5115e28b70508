"""TL104 retain-graph-in-loop: fixtures.

An `expect` annotation sits before a `.backward(retain_graph=True)` in a loop
whose iteration never backpropagates that graph again: the graph is built
fresh in the iteration and differentiated once, so retaining it only keeps
its saved tensors alive. An `ok` annotation sits before the forms where
keeping the graph is the point: a later backward (or torch.autograd.grad)
in the same iteration, in program order (an earlier one does not count), a shared trunk differentiated once per head, a list
of losses over one forward, higher-order gradients, and calls outside any
loop.
"""
import torch
from torch import nn
from torch.amp import GradScaler
from torch.utils.data import DataLoader
from accelerate import Accelerator

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU())
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.body(x))


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU())
        self.cls = nn.Linear(256, 10)
        self.reg = nn.Linear(256, 1)

    def forward(self, x):
        feat = self.trunk(x)
        return self.cls(feat), self.reg(feat)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: one loss, one backward per batch: nothing uses the retained graph.
def plain_loop(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    criterion = nn.CrossEntropyLoss()
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x.to(device)), y.to(device))
        # expect: TL104
        loss.backward(retain_graph=True)
        optimizer.step()


# Flagged: a `while` step loop.
def while_loop(batches, max_steps):
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    step = 0
    while step < max_steps:
        x, y = next(batches)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        # expect: TL104
        loss.backward(retain_graph=True)
        optimizer.step()
        step += 1


# Flagged: the AMP form, on the scaled loss.
def amp_loop(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = Net().to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = GradScaler("cuda")
    for x, y in loader:
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            loss = nn.functional.cross_entropy(model(x), y)
        # expect: TL104
        scaler.scale(loss).backward(retain_graph=True)
        scaler.step(optimizer)
        scaler.update()


# Flagged: `torch.autograd.backward(..., retain_graph=True)`.
def autograd_backward_loop(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=32)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for i, (x, y) in enumerate(loader):
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        # expect: TL104
        torch.autograd.backward(loss, retain_graph=True)
        optimizer.step()


def train_step(model, optimizer, x, y):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    # expect: TL104
    loss.backward(retain_graph=True)
    optimizer.step()
    # expect: TL304
    return loss.item()


# Flagged (above, in train_step): the step helper runs once per batch of this loop; its callers pass plain data.
def loop_calling_step_helper(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=32)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        train_step(model, optimizer, x.to(device), y.to(device))


# Flagged: epoch and batch loops; the graph is built per batch.
def epochs_and_batches(dataset, epochs):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=128, shuffle=True)
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    for epoch in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            out = model(x)
            loss = criterion(out, y) + 1e-4 * out.pow(2).mean()
            # expect: TL104
            loss.backward(retain_graph=True)
            optimizer.step()


# Flagged: a trainer method over `self.` attributes.
class Trainer:
    def __init__(self):
        self.model = Net().to(device)
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=1e-3)
        self.criterion = nn.CrossEntropyLoss()

    def fit(self, loader):
        for x, y in loader:
            self.optimizer.zero_grad()
            loss = self.criterion(self.model(x), y)
            # expect: TL104
            loss.backward(retain_graph=True)
            self.optimizer.step()


# Flagged: Accelerate forwards the keyword to the backward; the graph is still used once.
def accelerate_loop(dataset):
    accelerator = Accelerator()
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    loader = DataLoader(dataset, batch_size=32)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        # expect: TL104
        accelerator.backward(loss, retain_graph=True)
        optimizer.step()


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: two losses over one shared trunk, backpropagated one after the other: the first must retain the graph.
def multi_task_two_backwards(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = TwoHeads().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y, t in loader:
        optimizer.zero_grad()
        logits, value = model(x)
        cls_loss = nn.functional.cross_entropy(logits, y)
        reg_loss = nn.functional.mse_loss(value.squeeze(1), t)
        # ok: TL104
        cls_loss.backward(retain_graph=True)
        reg_loss.backward()
        optimizer.step()


# OK: a GAN whose generator loss reuses the fake batch's graph after the discriminator's backward.
def gan_shared_fake(loader, netG, netD, nz=64):
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    for real in loader:
        optD.zero_grad()
        optG.zero_grad()
        fake = netG(torch.randn(real.size(0), nz, device=device))
        d_loss = bce(netD(real), torch.ones(real.size(0), 1)) + bce(netD(fake), torch.zeros(real.size(0), 1))
        # ok: TL104
        d_loss.backward(retain_graph=True)
        optD.step()
        g_loss = bce(netD(fake), torch.ones(real.size(0), 1))
        g_loss.backward()
        optG.step()


# OK: the retained graph is read again by torch.autograd.grad (input saliency for logging).
def saliency_after_backward(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=16)
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        x.requires_grad_(True)
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        # ok: TL104
        loss.backward(retain_graph=True)
        saliency = torch.autograd.grad(loss, x)[0].abs().amax(1)
        optimizer.step()
        # expect: TL304
        print(saliency.mean().item())


# OK: the trunk runs once per batch and each head's loss is backpropagated through it in turn.
def per_head_inner_loop(dataset, heads):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    trunk = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU()).to(device)
    params = list(trunk.parameters()) + [p for h in heads for p in h.parameters()]
    optimizer = torch.optim.Adam(params)
    for x, targets in loader:
        optimizer.zero_grad()
        feat = trunk(x)
        for head, t in zip(heads, targets):
            # ok: TL104
            nn.functional.cross_entropy(head(feat), t).backward(retain_graph=True)
        optimizer.step()


# OK: a list of losses over one forward, backpropagated one by one.
def list_of_losses(dataset, weights):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = TwoHeads().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y, t in loader:
        optimizer.zero_grad()
        logits, value = model(x)
        losses = [nn.functional.cross_entropy(logits, y), nn.functional.mse_loss(value.squeeze(1), t)]
        for w, loss in zip(weights, losses):
            # ok: TL104
            (w * loss).backward(retain_graph=True)
        optimizer.step()


# OK: higher-order gradients: create_graph=True keeps the graph anyway (and is needed here).
def gradient_norm_penalty(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        # ok: TL104
        loss.backward(create_graph=True, retain_graph=True)
        penalty = sum(p.grad.pow(2).sum() for p in model.parameters())
        optimizer.step()
        print(penalty.item())


# OK: no loop: a single backward in a one-off function (a debugging probe).
def probe_once(model, x, y):
    loss = nn.functional.cross_entropy(model(x), y)
    # ok: TL104
    loss.backward(retain_graph=True)
    return {n: p.grad.norm().item() for n, p in model.named_parameters() if p.grad is not None}


def heads_backward(features, heads, targets):
    for head, t in zip(heads, targets):
        # ok: TL104
        nn.functional.cross_entropy(head(features), t).backward(retain_graph=True)


# OK (above, in heads_backward): the caller passes a graph tensor (the trunk's output), differentiated once per head.
def loop_passing_features(dataset, heads):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    trunk = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU()).to(device)
    optimizer = torch.optim.Adam(trunk.parameters())
    for x, targets in loader:
        optimizer.zero_grad()
        heads_backward(trunk(x), heads, targets)
        optimizer.step()


# OK: a flag that is no literal is not judged.
def flag_retain(dataset, keep):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        # ok: TL104
        loss.backward(retain_graph=keep)
        optimizer.step()


# Flagged: a recurrent state carried from the previous iteration (TL103's finding): the next backward runs
# through this iteration's graph, so retaining it only hides the error; detaching the state is the fix, and
# then nothing needs the graph (the message says both).
def carried_state_needs_it(batches, h):
    gru = nn.GRU(16, 32).to(device)
    optimizer = torch.optim.SGD(gru.parameters(), lr=0.1)
    for x, y in batches:
        optimizer.zero_grad()
        # expect: TL103
        out, h = gru(x, h)
        # expect: TL104
        nn.functional.mse_loss(out, y).backward(retain_graph=True)
        optimizer.step()


# Flagged: the same loop with the state detached: nothing reaches the retained graph any more.
def detached_state_does_not(batches, h):
    gru = nn.GRU(16, 32).to(device)
    optimizer = torch.optim.SGD(gru.parameters(), lr=0.1)
    for x, y in batches:
        h = h.detach()
        optimizer.zero_grad()
        out, h = gru(x, h)
        # expect: TL104
        nn.functional.mse_loss(out, y).backward(retain_graph=True)
        optimizer.step()


def second_pass(model, x, y):
    nn.functional.cross_entropy(model(x), y).backward()


# OK: the second backward of the iteration runs in a helper.
def second_backward_in_helper(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = Net().to(device)
    optimizer = torch.optim.Adam(model.parameters())
    for x, y in loader:
        optimizer.zero_grad()
        aux = model(x).pow(2).mean()
        # ok: TL104
        aux.backward(retain_graph=True)
        second_pass(model, x, y)
        optimizer.step()


# Flagged: the retained backward is the LAST of the step; the discriminator's backward ran before it.
def gan_last_backward_retains(loader, netG, netD):
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    bce = nn.BCEWithLogitsLoss()
    for real in loader:
        fake = netG(torch.randn(real.size(0), 64, device=device))
        optD.zero_grad()
        d_loss = bce(netD(real), torch.ones(real.size(0), 1)) + bce(netD(fake.detach()), torch.zeros(real.size(0), 1))
        d_loss.backward()
        optD.step()
        optG.zero_grad()
        g_loss = bce(netD(fake), torch.ones(real.size(0), 1))
        # expect: TL104
        g_loss.backward(retain_graph=True)
        optG.step()


class EncoderDecoderTrainer:
    """Two losses over one encoder pass: the first backward keeps the graph for the second, which
    runs in a method called after it; the second needs nothing kept."""

    def __init__(self, encoder, decoder, loader):
        self.encoder, self.decoder, self.loader = encoder, decoder, loader
        self.opt = torch.optim.Adam(list(encoder.parameters()) + list(decoder.parameters()))

    def _reconstruction_step(self, z, x):
        rec = nn.functional.mse_loss(self.decoder(z), x)
        # expect: TL104
        rec.backward(retain_graph=True)

    def fit(self):
        for x, y in self.loader:
            self.opt.zero_grad()
            z = self.encoder(x)
            cls = nn.functional.cross_entropy(z, y)
            # ok: TL104
            cls.backward(retain_graph=True)
            self._reconstruction_step(z, x)
            self.opt.step()


# OK: one output computed before the loop, backpropagated slice by slice with
# an upstream gradient for each (a hypernetwork's outputs, a Jacobian built
# row by row): every later slice needs the same graph, so it must be kept.
def backward_by_rows(hypernet, upstream):
    rows = torch.tanh(hypernet(torch.randn(3, 16)))
    for row, g in zip([rows[i] for i in range(rows.shape[0])], upstream):
        # ok: TL104
        torch.autograd.backward(row, g, retain_graph=True)


def backward_by_chunks(hypernet, upstream):
    rows = hypernet(torch.randn(4, 16))
    for part, g in zip(rows.chunk(2), upstream):
        # ok: TL104
        part.backward(g, retain_graph=True)


# Each iteration builds its own graph: nothing later reuses it.
def backward_fresh_rows(hypernet, inputs, upstream):
    for x, g in zip(inputs, upstream):
        rows = hypernet(x)
        # expect: TL104
        rows.backward(g, retain_graph=True)




# OK (issue 22, ecosystem): a helper backpropagates an output that an
# earlier call stored in the activations it is handed (a pipeline
# schedule's saved micro-batch outputs); the code does not show that no
# other invocation reaches the same graph again, and here they do: the
# stored pieces are slices of one forward.
def backward_stored(activations, index, grad):
    out = activations[index]
    # ok: TL104
    out.backward(grad, retain_graph=True)


def pipeline_backward(model, x, grads, opt):
    outs = model(x)
    activations = {i: outs[i] for i in range(len(grads))}
    for i, g in enumerate(grads):
        backward_stored(activations, i, g)
    opt.step()


# The helper's loss is made in the call itself: nothing reuses its graph.
def train_step_retained(model, x, y):
    loss = torch.nn.functional.mse_loss(model(x), y)
    # expect: TL104
    loss.backward(retain_graph=True)


def train_retained(model, loader, opt):
    for x, y in loader:
        opt.zero_grad()
        train_step_retained(model, x, y)
        opt.step()


# ---------------------------------------------------------------------------
# Targets made before the loop (image optimisation, style transfer)
# ---------------------------------------------------------------------------

# A feature extractor whose weights require grad (nothing freezes them).
style_net = nn.Sequential(nn.Conv2d(3, 8, 3), nn.ReLU(), nn.Conv2d(8, 8, 3), nn.ReLU()).to(device)


def features(img, layers):
    outs = []
    x = img
    for i in range(len(style_net)):
        x = style_net[i](x)
        if i in layers:
            outs.append(x)
    return outs


def gram_matrix(f):
    b, c = f.shape[0], f.shape[1]
    m = f.view(b * c, -1)
    return m @ m.t() / m.shape[1]


def image_loss(img, style_grams, layers):
    return sum(nn.functional.mse_loss(gram_matrix(f), g) for f, g in zip(features(img, layers), style_grams))


def prepare(style_img, layers):
    return [gram_matrix(f) for f in features(style_img, layers)]


def optimise_image(img, style_grams, layers, steps):
    opt = torch.optim.Adam([img], lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        loss = image_loss(img, style_grams, layers)
        # ok: TL104
        loss.backward(retain_graph=True)
        opt.step()
    return img.detach()


# OK (above, in optimise_image): the style Gram matrices come from the extractor, with gradients
# on, once before the loop; they reach it through parameters, and every step's loss reads them,
# so every backward runs through their graph again, which the first one would free without
# retain_graph.
def style_transfer_targets_with_graph(style_img, layers):
    grams = prepare(style_img, layers)
    return optimise_image(torch.rand(1, 3, 32, 32, requires_grad=True), grams, layers, 200)


def optimise_image_detached(img, style_grams, layers, steps):
    opt = torch.optim.Adam([img], lr=0.01)
    for _ in range(steps):
        opt.zero_grad()
        loss = image_loss(img, style_grams, layers)
        # expect: TL104
        loss.backward(retain_graph=True)
        opt.step()
    return img.detach()


# Flagged (above, in optimise_image_detached): the same targets detached hold no graph;
# each step's graph is its own and is differentiated once.
def style_transfer_targets_detached(style_img, layers):
    grams = [g.detach() for g in prepare(style_img, layers)]
    return optimise_image_detached(torch.rand(1, 3, 32, 32, requires_grad=True), grams, layers, 200)


# OK: the same in one function, the targets made in it before the loop with gradients on.
def style_transfer_inline(style_img, layers):
    targets = [gram_matrix(f) for f in features(style_img, layers)]
    img = torch.rand(1, 3, 32, 32, requires_grad=True)
    opt = torch.optim.Adam([img], lr=0.01)
    for _ in range(100):
        opt.zero_grad()
        loss = sum(nn.functional.mse_loss(gram_matrix(f), t) for f, t in zip(features(img, layers), targets))
        # ok: TL104
        loss.backward(retain_graph=True)
        opt.step()


# Flagged: the same with the targets detached where they are made.
def style_transfer_inline_detached(style_img, layers):
    targets = [gram_matrix(f).detach() for f in features(style_img, layers)]
    img = torch.rand(1, 3, 32, 32, requires_grad=True)
    opt = torch.optim.Adam([img], lr=0.01)
    for _ in range(100):
        opt.zero_grad()
        loss = sum(nn.functional.mse_loss(gram_matrix(f), t) for f, t in zip(features(img, layers), targets))
        # expect: TL104
        loss.backward(retain_graph=True)
        opt.step()


def check_backward_twice(layer, x):
    w = torch.randn(4, 4, requires_grad=True)
    ref = (x.requires_grad_(True) @ w).sum()
    # ok: TL104
    ref.backward(retain_graph=True)
    out = layer(x @ w).sum()
    # expect: TL104
    out.backward(retain_graph=True)
    return w.grad


# Flagged (above, in check_backward_twice): the helper's tensors are made in each call; the
# second backward is its last, and nothing backpropagates that graph again; the helper also
# runs once outside the loop, which makes none of its values older than the iteration.
def sweep_layers(layers, inputs):
    check_backward_twice(layers[0], inputs[0])
    opt = torch.optim.SGD([p for l in layers for p in l.parameters()], lr=0.1)
    for layer, x in zip(layers, inputs):
        opt.zero_grad()
        check_backward_twice(layer, x)
        opt.step()
