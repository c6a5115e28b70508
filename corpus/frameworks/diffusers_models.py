"""diffusers' models are nn.Modules (`ModelMixin` derives from it), known by
their names: calling `unet.forward(...)` skips the module's hooks. Their
`from_pretrained` returns the model in eval mode (it calls `model.eval()`),
so a forward of it with gradients on records a graph for nothing: the API
table says so (set eval-mode) and the model's module modes follow it, but
TL102 does not read them yet (a todo-expect)."""
import torch
from diffusers import UNet2DConditionModel


def denoise(loader, cond):
    unet = UNet2DConditionModel(sample_size=32, in_channels=4, out_channels=4)
    preds = []
    for x, t in loader:
        with torch.no_grad():
            # expect: TL207
            preds.append(unet.forward(x, t, cond).sample)
    return preds


def denoise_ok(loader, cond):
    unet = UNet2DConditionModel(sample_size=32, in_channels=4, out_channels=4)
    preds = []
    for x, t in loader:
        with torch.no_grad():
            # ok: TL207
            preds.append(unet(x, t, cond).sample)
    return preds


def sample(loader, cond):
    unet = UNet2DConditionModel.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet")
    for x, t in loader:
        # expect: TL102
        pred = unet(x, t, cond).sample
        print(pred.mean().item())


def sample_ok(loader, cond):
    unet = UNet2DConditionModel.from_pretrained("runwayml/stable-diffusion-v1-5", subfolder="unet")
    with torch.inference_mode():
        for x, t in loader:
            # ok: TL102
            pred = unet(x, t, cond).sample
            print(pred.mean().item())
