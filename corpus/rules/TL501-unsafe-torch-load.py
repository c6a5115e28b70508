"""TL501 unsafe-torch-load: fixtures (torch-version 2.6, the default).

An `expect` annotation sits before a `torch.load(...)` that unpickles
arbitrary objects whatever the PyTorch version: `weights_only=False`
written out, or a `pickle_module=` other than None (also through
`from torch import load`, module aliases and `torch.serialization.load`),
a `weights_only` given through a local name bound once to False, and
checkpoint downloads (`torch.hub.load_state_dict_from_url`,
`torch.utils.model_zoo.load_url`) without `weights_only=True`, whose
default stays False at every version.
An `ok` annotation sits before loads that are safe on 2.6 (the default is
`weights_only=True` there), loads with `weights_only=True` or a flag the
file cannot evaluate, and other functions called `load`. The loads that
are only unsafe before 2.6 are in corpus/versions/torch-2.4/.
"""
import json
import pickle

import dill
import torch
import torch as T
import torch.utils.model_zoo as model_zoo
from torch import load
from torch import load as torch_load
from torch.hub import load_state_dict_from_url


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def resume(path, model, optimizer):
    # expect: TL501
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    return ckpt["epoch"]


def imported_name(path):
    # expect: TL501
    return load(path, weights_only=False)


def renamed_import(path):
    # expect: TL501
    return torch_load(path, weights_only=False, mmap=True)


def module_alias(path):
    # expect: TL501
    return T.load(path, weights_only=False)


def serialization_load(path):
    # expect: TL501
    return torch.serialization.load(path, weights_only=False)


def with_dill(path):
    # expect: TL501
    return torch.load(path, pickle_module=dill)


def with_pickle_module(path):
    # expect: TL501
    return torch.load(path, map_location="cpu", pickle_module=pickle)


def multi_line(path, device):
    # expect: TL501
    state = torch.load(
        path,
        map_location=device,
        weights_only=False,
    )
    return state


def from_file_object(path):
    with open(path, "rb") as f:
        # expect: TL501
        return torch.load(f, weights_only=False)


def flag_bound_once(path):
    trusted_format = False
    # expect: TL501
    return torch.load(path, weights_only=trusted_format)


SAFE_LOAD = False


def module_level_flag(path):
    # expect: TL501
    return torch.load(path, map_location="cpu", weights_only=SAFE_LOAD)


def hub_download(model, url):
    # expect: TL501
    state = torch.hub.load_state_dict_from_url(url, map_location="cpu", progress=True)
    model.load_state_dict(state)


def hub_download_imported(url):
    # expect: TL501
    return load_state_dict_from_url(url, check_hash=True)


def model_zoo_download(url):
    # expect: TL501
    return model_zoo.load_url(url)


def model_zoo_explicit_false(url, model_dir):
    # expect: TL501
    return torch.utils.model_zoo.load_url(url, model_dir=model_dir, weights_only=False)


# ---------------------------------------------------------------------------
# Tricky but correct
# ---------------------------------------------------------------------------


def default_is_safe_on_26(path):
    # ok: TL501
    return torch.load(path, map_location="cpu")


def explicit_true(path):
    # ok: TL501
    return torch.load(path, weights_only=True)


def flag_not_literal(path, trusted):
    # ok: TL501
    return torch.load(path, weights_only=not trusted)


def options_through_kwargs(path, **kwargs):
    # ok: TL501
    return torch.load(path, **kwargs)


def pickle_module_none(path):
    # ok: TL501
    return torch.load(path, pickle_module=None, weights_only=True)


def other_loads(path):
    with open(path) as f:
        # ok: TL501
        cfg = json.load(f)
    with open(path, "rb") as f:
        # ok: TL501
        obj = pickle.load(f)
    return cfg, obj


class Checkpointer:
    def load(self, path, weights_only=False):
        return path

    def restore(self, path):
        # ok: TL501
        return self.load(path, weights_only=False)


def safe_globals_context(path, Config):
    with torch.serialization.safe_globals([Config]):
        # ok: TL501
        return torch.load(path, weights_only=True)


def jit_load(path):
    # ok: TL501
    return torch.jit.load(path)


def flag_bound_twice(path, legacy):
    allow_pickle = False
    if legacy:
        allow_pickle = True
    # ok: TL501
    return torch.load(path, weights_only=not allow_pickle)


def flag_from_parameter(path, weights_only=False):
    # ok: TL501
    return torch.load(path, weights_only=weights_only)


def flag_bound_once_true(path):
    safe = True
    # ok: TL501
    return torch.load(path, weights_only=safe)


def hub_download_safe(url):
    # ok: TL501
    return torch.hub.load_state_dict_from_url(url, map_location="cpu", weights_only=True)


def model_zoo_safe(url):
    # ok: TL501
    return model_zoo.load_url(url, weights_only=True)


def hub_download_options(url, **options):
    # ok: TL501
    return torch.hub.load_state_dict_from_url(url, **options)


def hub_model_not_a_state_dict():
    # ok: TL501
    return torch.hub.load("pytorch/vision", "resnet18", weights="DEFAULT")
