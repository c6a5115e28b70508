"""TL301 host-tensor-moved-to-device: loops over configurations.

A loop is a step loop only when what its iteration steps, backpropagates or
runs forward holds state from before the iteration: a model, loss object or
optimizer made before the loop, a parameter, or data that may require grad.
A loop whose every iteration builds its model, its loss object and its data
afresh and takes one backward (a sweep over dtypes or settings in a test)
runs one independent run per configuration: nothing there is per step.
An `expect` annotation marks the twins with the model, loss object or
optimizer built before the loop (or read off `self`, a parameter, or a
function of the project that reads more than its arguments); an `ok` annotation marks the sweeps.
"""
import torch
import torch.nn as nn

DTYPES = [torch.float16, torch.float32, torch.float64]
DEVICE = torch.device("cuda")


class ArcLoss(nn.Module):
    def __init__(self, num_classes, embedding_size, margin=0.5):
        super().__init__()
        self.W = nn.Parameter(torch.randn(embedding_size, num_classes))
        self.margin = margin

    def forward(self, x, y):
        logits = x @ self.W
        return nn.functional.cross_entropy(logits - self.margin, y)


class Net(nn.Module):
    def __init__(self, width=8):
        super().__init__()
        self.fc = nn.Linear(2, width)

    def forward(self, x):
        return self.fc(x)


class Miner(nn.Module):
    def __init__(self, angle):
        super().__init__()
        self.angle = angle

    def forward(self, x):
        return (x @ x.t() > self.angle).nonzero()


# ---------------------------------------------------------------------------
# Flagged: the loss object, the model or the optimizer outlives the iteration
# ---------------------------------------------------------------------------


def loss_made_before_the_loop():
    loss_func = ArcLoss(10, 2)
    for dtype in DTYPES:
        # expect: TL301, TL307
        emb = torch.randn(32, 2).to(DEVICE).type(dtype)
        # expect: TL301, TL307
        labels = torch.randint(0, 10, (32,)).to(DEVICE)
        loss = loss_func(emb, labels)
        loss.backward()


def model_made_before_the_loop(widths):
    model = Net()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for width in widths:
        opt.zero_grad()
        # expect: TL301, TL307
        x = torch.ones(4, 2).to(DEVICE)
        loss = model(x).sum()
        loss.backward()
        opt.step()


def fresh_wrapper_of_a_model_from_before(settings):
    model = Net()
    for s in settings:
        wrapped = nn.DataParallel(model)
        opt = torch.optim.SGD(wrapped.parameters(), lr=0.1)
        # expect: TL301, TL307
        x = torch.ones(4, 2).to(DEVICE)
        wrapped(x).sum().backward()
        opt.step()


def model_from_a_parameter(model, widths):
    for width in widths:
        # expect: TL301, TL307
        x = torch.ones(4, 2).to(DEVICE)
        model(x).sum().backward()


def leaf_made_before_the_loop(margins):
    w = torch.randn(2, 10, requires_grad=True)
    for margin in margins:
        # expect: TL301, TL307
        x = torch.randn(4, 2).to(DEVICE)
        loss = (x @ w).sum() * margin
        loss.backward()


def steps_through_one_model(loader):
    model = Net().to(DEVICE)
    crit = nn.CrossEntropyLoss()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        # expect: TL301, TL307
        x = torch.as_tensor(x).float().to(DEVICE) + torch.zeros(1).to(DEVICE)
        loss = crit(model(x), y.to(DEVICE))
        opt.zero_grad()
        loss.backward()
        opt.step()


class Tester:
    def __init__(self):
        self.loss_func = ArcLoss(10, 2)

    def run(self):
        for dtype in DTYPES:
            # expect: TL301, TL307
            emb = torch.randn(32, 2).to(DEVICE).type(dtype)
            # expect: TL301, TL307
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            self.loss_func(emb, labels).backward()


def inner_loop_reuses_the_loss_of_the_outer_round():
    for dtype in DTYPES:
        loss_func = ArcLoss(10, 2)
        for _ in range(20):
            # expect: TL301, TL307
            emb = torch.randn(32, 2).to(DEVICE).type(dtype)
            # expect: TL301, TL307
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            loss_func(emb, labels).backward()


# ---------------------------------------------------------------------------
# Silent: one independent run per configuration
# ---------------------------------------------------------------------------


def fresh_loss_per_dtype():
    for dtype in DTYPES:
        loss_func = ArcLoss(10, 2)
        # ok: TL301
        emb = torch.randn(32, 2).to(DEVICE).type(dtype)
        # ok: TL301
        labels = torch.randint(0, 10, (32,)).to(DEVICE)
        loss = loss_func(emb, labels)
        loss.backward()


def fresh_loss_per_dtype_and_margin():
    for dtype in DTYPES:
        for margin in [0.1, 0.3, 0.5]:
            loss_func = ArcLoss(10, 2, margin=margin)
            # ok: TL301
            emb = torch.tensor([[0.5, 0.5]] * 32, requires_grad=True, dtype=dtype).to(DEVICE)
            # ok: TL301
            labels = torch.randint(0, 10, (32,)).to(DEVICE)
            loss_func(emb, labels).backward()


def fresh_model_and_optimizer_per_setting():
    for width, lr in [(4, 0.1), (8, 0.01)]:
        model = Net(width).to(DEVICE)
        opt = torch.optim.SGD(model.parameters(), lr=lr)
        # ok: TL301
        x = torch.ones(4, 2).to(DEVICE)
        loss = model(x).sum()
        loss.backward()
        opt.step()


def fresh_miner_per_dtype():
    # A loop that only runs forwards: each iteration builds the module it runs.
    for dtype in DTYPES:
        miner = Miner(35)
        # ok: TL301
        pairs = miner(torch.randn(32, 2).to(DEVICE).type(dtype))
        print(len(pairs))


def miner_made_before_the_loop():
    miner = Miner(35)
    for dtype in DTYPES:
        # expect: TL301, TL307
        pairs = miner(torch.randn(32, 2).to(DEVICE).type(dtype))
        print(len(pairs))


def fresh_helper_per_item(maps):
    # A loop over data that builds a helper module per item: the item it
    # runs the helper on comes from before the iteration, a step loop still.
    outs = []
    for attn in maps:
        blur = nn.AvgPool2d(3, stride=1, padding=1)
        # expect: TL301
        out = blur(attn.cuda() + torch.zeros(1, 1, 4, 4).cuda())
        outs.append(out.detach())
    return outs


def fresh_model_given_the_weights_of_before(state):
    # Each iteration builds a model, then loads the weights made before the
    # loop into it: the model it runs holds state from before.
    for dtype in DTYPES:
        model = Net()
        model.load_state_dict(state)
        # expect: TL301, TL307
        out = model(torch.randn(4, 2).to(DEVICE).type(dtype))
        print(out.shape)


# A helper of the project that computes only from what it is handed (and
# what it makes itself) gives a value made afresh where its arguments are;
# one that reads a global model does not.

SHARED = Net()


def soft_max_with_zero(x, dim=1):
    zeros = torch.zeros(x.size(0), 1, dtype=x.dtype, device=x.device)
    return torch.logsumexp(torch.cat([x, zeros], dim=dim), dim=dim)


def through_the_shared_model(x):
    return SHARED(x)


def reference_helper_per_dtype():
    for dtype in DTYPES:
        mat = torch.tensor([[0.5, 1.0], [2.0, -1.0]], dtype=dtype, requires_grad=True).to(DEVICE)
        result = soft_max_with_zero(mat)
        # ok: TL104
        torch.mean(result).backward(retain_graph=True)
        # ok: TL301
        expected = torch.logsumexp(torch.cat([mat, torch.zeros(2, 1, dtype=dtype).to(DEVICE)], dim=1), dim=1)
        print(torch.allclose(result, expected))


def helper_reads_a_global_model():
    for dtype in DTYPES:
        x = torch.ones(4, 2, dtype=dtype, requires_grad=True)
        # expect: TL301, TL307
        y = through_the_shared_model(x + torch.zeros(4, 2).to(DEVICE))
        y.sum().backward()
