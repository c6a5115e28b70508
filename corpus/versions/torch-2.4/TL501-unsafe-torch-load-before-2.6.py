"""TL501 unsafe-torch-load under torch-version 2.4 (./torchlint.toml).

Before PyTorch 2.6, `torch.load` unpickles arbitrary objects unless told
`weights_only=True`: an `expect` annotation sits before every load that
does not say so (checkpoint downloads too: their default stays False at
every version). An `ok` annotation sits before loads that opt in, loads
whose flag or options the file cannot evaluate, and other `load`s.
TL402 (deprecated from 2.4 on) still applies here.
"""
import torch
from torch import load
from torch.cuda.amp import GradScaler


def resume(path, model):
    # expect: TL501
    ckpt = torch.load(path, map_location="cpu")
    model.load_state_dict(ckpt["model"])


def bare(path):
    # expect: TL501
    return load(path)


def explicit_false(path):
    # expect: TL501
    return torch.load(path, weights_only=False)


def opted_in(path):
    # ok: TL501
    return torch.load(path, map_location="cpu", weights_only=True)


def flag(path, trusted):
    # ok: TL501
    return torch.load(path, weights_only=trusted)


def options(path, **kw):
    # ok: TL501
    return torch.load(path, **kw)


def hub(url):
    # the download's default stays weights_only=False at every version
    # expect: TL501
    return torch.hub.load_state_dict_from_url(url)


# expect: TL402
scaler = GradScaler()


def resume_compatible(path, model):
    # A PyTorch before 1.13 does not know weights_only= and raises TypeError:
    # the retry without it is the fallback for that version, not a finding.
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except TypeError:
        # ok: TL501
        state = torch.load(path, map_location="cpu")
    model.load_state_dict(state)


def resume_any_error(path, model):
    # A load retried after any failure is no version fallback.
    try:
        state = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:
        # expect: TL501
        state = torch.load(path, map_location="cpu")
    model.load_state_dict(state)
