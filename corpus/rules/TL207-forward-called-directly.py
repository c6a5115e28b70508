"""TL207 forward-called-directly (opt-in): fixtures.

An `expect` annotation sits before `module.forward(...)` called on a known
module from outside that module's own methods: its forward hooks and
pre-hooks do not run. An `ok` annotation sits before `self.forward(...)` and
`super().forward(...)` inside the class, explicit base-class calls, calls on
wrappers whose forward is their entry point (DistributedDataParallel, a
RemoteModule), and `.forward` on objects that are not modules.
"""
import torch
import torchvision
from torch import nn
from torch.distributed.nn import RemoteModule
from torch.nn.parallel import DistributedDataParallel as DDP
from transformers import AutoModel


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU())
        self.head = nn.Linear(256, 10)

    def forward(self, x):
        return self.head(self.backbone(x))

    def features(self, x):
        # expect: TL207
        return self.backbone.forward(x)

    def logits_twice(self, x):
        # ok: TL207
        return self.forward(x) + self.forward(x.flip(-1))


class Residual(nn.Sequential):
    def forward(self, x):
        # ok: TL207
        return x + super().forward(x)


class LegacyResidual(nn.Sequential):
    def forward(self, x):
        # ok: TL207
        return x + super(LegacyResidual, self).forward(x)


class Scaled(Net):
    def forward(self, x):
        # ok: TL207
        return 0.5 * Net.forward(self, x)


class Pipeline:
    """Not a module: a preprocessing pipeline with a method named forward."""

    def forward(self, x):
        return (x - 0.5) / 0.5


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: a training loop calling the model's forward directly.
def train(loader, epochs=1):
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        optimizer.zero_grad()
        # expect: TL207
        logits = model.forward(x)
        nn.functional.cross_entropy(logits, y).backward()
        optimizer.step()


# Flagged: a trainer over `self.model`.
class Trainer:
    def __init__(self):
        self.model = Net()

    def predict(self, x):
        with torch.no_grad():
            # expect: TL207
            return self.model.forward(x)


# Flagged: an nn.Sequential bound in the file.
def encode(x):
    encoder = nn.Sequential(nn.Linear(16, 8), nn.ReLU())
    # expect: TL207
    return encoder.forward(x)


# Flagged: a torchvision model.
def classify(images):
    resnet = torchvision.models.resnet18(weights=None)
    # expect: TL207
    return resnet.forward(images)


# Flagged: a Hugging Face model from from_pretrained.
def embed(batch):
    model = AutoModel.from_pretrained("bert-base-uncased")
    # expect: TL207, TL102
    return model.forward(**batch).last_hidden_state


# Flagged: a parameter annotated as a module.
def run(m: nn.Module, x):
    # expect: TL207
    return m.forward(x)


# Flagged: a criterion is a module too; its hooks are skipped the same way.
def loss_of(logits, y):
    criterion = nn.CrossEntropyLoss()
    # expect: TL207
    return criterion.forward(logits, y)


# Flagged: the hooks a user registered never fire.
def with_hook(x):
    model = Net()
    model.register_forward_hook(lambda mod, inp, out: print(out.shape))
    # expect: TL207
    return model.forward(x)


# Flagged: the module inside a DistributedDataParallel wrapper, called
# around both the wrapper and its own __call__ (the fix is `ddp_model(x)`).
def ddp_inner_forward(x, rank):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    # expect: TL207
    return ddp_model.module.forward(x)


class DDPTrainer:
    def __init__(self, model, rank):
        self.model = DDP(model.to(rank), device_ids=[rank])

    def step(self, x):
        # expect: TL207
        return self.model.module.forward(x)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: calling the module runs forward with its hooks.
def called_properly(x):
    model = Net()
    # ok: TL207
    return model(x)


# OK: a DistributedDataParallel wrapper's forward is where it prepares the gradient synchronisation.
def ddp_forward(x, rank):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    # ok: TL207
    return ddp_model.forward(x)


# OK: the wrapped module reached for its state, not its forward.
def save_inner(rank, path):
    ddp_model = DDP(Net().to(rank), device_ids=[rank])
    # ok: TL207
    torch.save(ddp_model.module.state_dict(), path)


# OK: `.module.forward` on something that is not a DDP wrapper.
def container_module_forward(holder, x):
    # ok: TL207
    return holder.module.forward(x)


# OK: a RemoteModule's forward is its remote-call API.
def remote_forward(x):
    remote = RemoteModule("worker1/cpu", nn.Linear, args=(20, 30))
    # ok: TL207
    return remote.forward(x)


# OK: not a module.
def preprocess(x):
    pipeline = Pipeline()
    # ok: TL207
    return pipeline.forward(x)


# OK: a bound-method reference is not a call.
def make_callback():
    model = Net()
    # ok: TL207
    fn = model.forward
    return fn
