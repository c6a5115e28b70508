"""TL206 to-result-discarded: fixtures.

An `expect` annotation sits before `x.to(device)` / `x.cuda()` / `x.cpu()` /
`x.half()` / `x.float()` ... used as a whole statement on a value known to be
a tensor (a factory's result, an element of a batch from a DataLoader the file
builds, a parameter annotated `torch.Tensor`, a graph tensor): the converted
copy is thrown away and `x` stays where it was. An `ok` annotation sits
before the same statement on modules (moved in place), on whole batches (which
may be objects that move in place), on values of unknown kind, on temporaries
run for their side effect, and before assigned conversions.
"""
import torch
from torch import nn
from torch.utils.data import DataLoader
from tqdm import tqdm
from accelerate import Accelerator

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Flatten(), nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))

    def forward(self, x):
        return self.layers(x)


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


# Flagged: the batch tensors are "moved" but the loop keeps using the CPU copies.
def batch_elements_not_moved(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    model = Net().to(device)
    for x, y in loader:
        # expect: TL206
        x.to(device)
        # expect: TL206
        y.to(device)
        print(model(x).shape, y.shape)


# Flagged: `enumerate(loader)` elements, `.cuda()`.
def enumerate_elements(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=64)
    model = Net().cuda()
    for i, (images, labels) in enumerate(loader):
        # expect: TL206
        images.cuda()
        print(i, model(images).argmax(1).eq(labels).sum())


# Flagged: a tensor made by a factory.
def factory_mask(n):
    mask = torch.ones(n, dtype=torch.bool)
    # expect: TL206
    mask.cuda()
    return mask


# Flagged: a parameter annotated as a tensor.
def prepare_input(x: torch.Tensor, dtype=torch.float16) -> torch.Tensor:
    # expect: TL206
    x.half()
    return x


# Flagged: an element of a whole batch, by index.
def batch_index(dataset):
    loader = DataLoader(dataset, batch_size=32)
    for batch in loader:
        # expect: TL206
        batch[0].to(device)
        print(batch[0].device)


# Flagged: unpacked from the batch in the body.
def unpacked_in_body(dataset):
    # expect: TL308
    loader = DataLoader(dataset, batch_size=32)
    model = Net().to(device)
    for batch in loader:
        inputs, targets = batch
        # expect: TL206
        # expect: TL306
        inputs.to(device, non_blocking=True)
        print(model(inputs).shape, targets.shape)


# Flagged: a model output (a graph tensor) converted and discarded.
def output_to_float(model, x):
    logits = model(x)
    # expect: TL206
    logits.float()
    return logits.softmax(-1)


# Flagged: a tensor attribute made in __init__ is not moved by `.cuda()` on it (use register_buffer).
class Smoother(nn.Module):
    def __init__(self, classes=10):
        super().__init__()
        self.weights = torch.linspace(0.5, 1.0, classes)

    def cuda_weights(self):
        # expect: TL206
        self.weights.cuda()


# Flagged: through tqdm.
def tqdm_loader(dataset):
    loader = DataLoader(dataset, batch_size=32)
    for x, y in tqdm(loader):
        # expect: TL206
        x.cpu()
        print(x.device, y)


# Flagged: a loader prepared by Accelerate still yields tensors.
def accelerate_prepared(dataset):
    accelerator = Accelerator()
    model = Net()
    optimizer = torch.optim.AdamW(model.parameters())
    loader = DataLoader(dataset, batch_size=32)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        # expect: TL206
        y.to(accelerator.device)
        print(model(x).shape, y.device)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


# OK: modules move in place.
def modules_in_place():
    model = Net()
    criterion = nn.CrossEntropyLoss()
    # ok: TL206
    model.to(device)
    # ok: TL206
    criterion.cuda()
    # ok: TL206
    model.half()
    return model, criterion


# OK: a module parameter with no annotation and evidence of being a module.
def move_model(model, device):
    model.train()
    # ok: TL206
    model.to(device)


# OK: assigned conversions.
def assigned(dataset):
    loader = DataLoader(dataset, batch_size=64)
    for x, y in loader:
        # ok: TL206
        x = x.to(device)
        y = y.to(device)
        print(x.device, y.device)


# OK: a whole batch may be an object that moves in place (a Hugging Face BatchEncoding, a PyG Data).
def whole_batch(dataset, collate):
    loader = DataLoader(dataset, batch_size=8, collate_fn=collate)
    for batch in loader:
        # ok: TL206
        batch.to(device)
        print(batch)


# OK: a temporary converted for its side effect (initialising CUDA).
def init_cuda():
    if torch.cuda.is_available():
        # ok: TL206
        torch.ones(1).cuda()


# OK: a loop over something that is not a DataLoader the file shows: the items' kind is unknown.
def unknown_items(items):
    for item, label in items:
        # ok: TL206
        item.to(device)


# OK: the converted value is used, not discarded.
def used(x: torch.Tensor):
    # ok: TL206
    return x.to(device)


# OK: in-place conversions are other methods (`requires_grad_`, `copy_`).
def in_place_methods(dataset):
    loader = DataLoader(dataset, batch_size=64)
    buffer = torch.empty(64, 784, device=device)
    for x, y in loader:
        # ok: TL206
        buffer.copy_(x.flatten(1))
        x.requires_grad_(True)
        print(buffer.sum(), y)


# OK: an object from a library call whose kind the file does not show (timm's ModelEmaV2 moves in place).
def ema_to_device(model, ema_factory):
    ema = ema_factory(model)
    # ok: TL206
    ema.to(device)
    return ema


# OK: a module kept in an attribute and re-bound to its own `.to(dtype)` elsewhere
# (`self.vae = self.vae.to(latents.dtype)`): a module, moved in place, not a tensor.
class UpcastingPipeline:
    def __init__(self, vae):
        self.register_modules(vae=vae)

    def upcast_vae(self):
        # ok: TL206
        self.vae.to(dtype=torch.float32)

    def decode(self, latents):
        if latents.dtype != self.vae.dtype:
            self.vae = self.vae.to(latents.dtype)
        return self.vae.decode(latents)


# Flagged: the loader is passed in by the only caller; its batches' parts are tensors.
def move_batches(loader):
    for x, y in loader:
        # expect: TL206
        x.to(device)
        print(y)


def run_move_batches(dataset):
    move_batches(DataLoader(dataset, batch_size=8))


# Flagged: `.chunk` hands back tensors where the receiver is.
def chunked(x: torch.Tensor):
    for part in x.chunk(4):
        # expect: TL206
        part.to(device)


# OK: what torch.load returns is what was saved (here a whole model, moved in place).
def load_and_move(path):
    style_model = torch.load(path)
    # ok: TL206
    style_model.to(device)
    return style_model
