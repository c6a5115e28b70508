import torch
import torch.nn as nn
import torchvision

backbone = torchvision.models.resnet18()
head = nn.Linear(512, 10)
freeze_head = None

# Misspelt flags on parameters: renamed.
for p in backbone.parameters():
    p.requires_grad = False
for name, param in backbone.named_parameters():
    if name.startswith("layer4"):
        param.requires_grad = True

# The flag set on modules: the module's method instead.
backbone.requires_grad_(False)
head.fc = nn.Linear(10, 10)
head.requires_grad_(not freeze_head if freeze_head is not None else False)

# A misspelt flag on a module: renamed, then turned into the method.
head.requires_grad_(False)

opt = torch.optim.SGD(head.parameters(), lr=0.1)
