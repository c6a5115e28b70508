"""TL211 requires-grad-typo: fixtures.

An `expect` annotation sits before an assignment that is meant to freeze
weights but sets an attribute autograd never reads: a misspelt flag
(`require_grad`, `requires_grads`, ...) on a parameter, tensor or module, or
`requires_grad` on a module (only tensors have that flag). An `ok`
annotation sits before the correct spellings, `requires_grad_()` calls,
modules' own attributes set through `self`, and objects that are not torch
values (configs, argparse namespaces).
"""
import argparse

import torch
import torchvision
from torch import nn


class Backbone(nn.Module):
    def __init__(self, freeze=False):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3)
        self.bn = nn.BatchNorm2d(16)
        # A module's own field, read by its forward.
        # ok: TL211
        self.requires_grad = not freeze
        # Same, under a misspelt name the class owns.
        # ok: TL211
        self.require_grad = not freeze

    def forward(self, x):
        if not self.requires_grad:
            x = x.detach()
        return self.bn(self.conv(x))


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = Backbone()
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        return self.head(self.backbone(x).mean((2, 3)))


# ---------------------------------------------------------------------------
# Flagged
# ---------------------------------------------------------------------------


def freeze_backbone_typo(model):
    for param in model.backbone.parameters():
        # expect: TL211
        param.require_grad = False


def freeze_named_typo():
    model = torchvision.models.resnet18(weights=None)
    for name, p in model.named_parameters():
        if not name.startswith("fc."):
            # expect: TL211
            p.requires_grads = False
    return model


def freeze_list_typo(model: nn.Module):
    params = list(model.parameters())
    for p in list(model.parameters())[:-2]:
        # expect: TL211
        p.require_grads = False
    return params


def freeze_whole_module():
    model = Classifier()
    # expect: TL211
    model.requires_grad = False
    return model


def freeze_submodule_attribute():
    model = Classifier()
    model.eval()
    # expect: TL211
    model.backbone.requires_grad = False
    return model


def freeze_embedding_weight():
    emb = nn.Embedding(1000, 64)
    # expect: TL211
    emb.weight.require_grad = False
    return emb


def frozen_buffer_tensor():
    scale = torch.ones(64)
    # expect: TL211
    scale.require_grad = True
    return scale


def frozen_parameter_object():
    temperature = nn.Parameter(torch.tensor(0.07))
    # expect: TL211
    temperature.required_grad = False
    return temperature


def freeze_filtered(model: nn.Module):
    for p in filter(lambda t: t.ndim > 1, model.parameters()):
        # expect: TL211
        p.require_grad = False


def freeze_typo_on_module():
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(64, 4), 2)
    # expect: TL211
    encoder.require_grad = False
    return encoder


# ---------------------------------------------------------------------------
# Not flagged
# ---------------------------------------------------------------------------


def freeze_correct(model):
    for p in model.backbone.parameters():
        # ok: TL211
        p.requires_grad = False


def freeze_module_method():
    model = Classifier()
    # ok: TL211
    model.backbone.requires_grad_(False)
    return model


def freeze_named_correct():
    model = torchvision.models.resnet18(weights=None)
    for name, p in model.named_parameters():
        # ok: TL211
        p.requires_grad = name.startswith("fc.")
    return model


def tensor_flag_correct():
    x = torch.randn(4, 4)
    # ok: TL211
    x.requires_grad = True
    return x


def config_objects():
    parser = argparse.ArgumentParser()
    parser.add_argument("--require-grad", action="store_true")
    args = parser.parse_args()
    # An argparse namespace, not a torch value.
    # ok: TL211
    args.require_grad = False
    return args


class Settings:
    pass


def plain_object_field():
    cfg = Settings()
    # A plain object of the file.
    # ok: TL211
    cfg.requires_grads = False
    return cfg


def named_pair_name_element(model: nn.Module):
    for name, p in model.named_parameters():
        # `name` is a string; only `p` is the parameter.
        # ok: TL211
        p.requires_grad = False
        print(name)


def unknown_receiver(layer_spec):
    # The kind of layer_spec is not shown.
    # ok: TL211
    layer_spec.require_grad = False
    return layer_spec


def parameter_correct():
    w = nn.Parameter(torch.zeros(3))
    # ok: TL211
    w.requires_grad = False
    return w


# ---------------------------------------------------------------------------
# Type guards (issue 22, ecosystem): a helper that freezes a mix of modules
# and parameters branches on isinstance; in the nn.Parameter branch the name
# is a tensor, whose requires_grad is the real flag, even though the other
# branch calls .parameters() on the same name.
# ---------------------------------------------------------------------------


def set_group_frozen(members, frozen):
    for m in members:
        if isinstance(m, nn.Parameter):
            # ok: TL211
            m.requires_grad = not frozen
        else:
            for p in m.parameters():
                p.requires_grad = not frozen


def freeze_embedding(holder):
    emb = getattr(holder, "embedding", None)
    if isinstance(emb, (torch.Tensor, nn.Parameter)) and emb is not None:
        # ok: TL211
        emb.requires_grad = False
    elif isinstance(emb, nn.Module):
        for p in emb.parameters():
            p.requires_grad = False


def set_group_frozen_wrong(members, frozen):
    # The guard proves a module here: the flag sets nothing.
    for m in members:
        if isinstance(m, nn.Module):
            for p in m.parameters():
                p.requires_grad = not frozen
            # expect: TL211
            m.requires_grad = not frozen


# A table a factory makes without requires_grad needs no freezing: the
# misspelt `= False` on it changes nothing (it becomes a buffer, or a
# parameter built with requires_grad=False). Made into a parameter that
# trains, or made to require grad, the misspelling matters.
class SinusoidTable(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        pe = torch.zeros(n, d).float()
        # ok: TL211
        pe.require_grad = False
        pe[:, 0::2] = torch.sin(torch.arange(0, n).float().unsqueeze(1))
        self.register_buffer("pe", pe.unsqueeze(0))


class FixedTable(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        w = torch.zeros(n, d).float()
        # ok: TL211
        w.require_grad = False
        self.emb = nn.Embedding(n, d)
        self.emb.weight = nn.Parameter(w, requires_grad=False)


def literal_table():
    table = torch.tensor([[0.0, 1.0], [1.0, 0.0]]).float() * 2
    # ok: TL211
    table.requires_grads = False
    return table


class TrainedTable(nn.Module):
    def __init__(self, n, d):
        super().__init__()
        w = torch.zeros(n, d).float()
        # expect: TL211
        w.require_grad = False
        self.w = nn.Parameter(w)


def leaf_table(n, d):
    w = torch.zeros(n, d, requires_grad=True)
    # expect: TL211
    w.require_grad = False
    return w


def table_set_to_train(n, d):
    w = torch.zeros(n, d)
    w.requires_grad_()
    # expect: TL211
    w.require_grad = False
    return w
