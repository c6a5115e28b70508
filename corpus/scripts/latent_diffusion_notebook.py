"""Latent diffusion written as a notebook is (corpus script, issue 22).

Module-level code, models from an imported library whose classes torchlint
cannot see: an autoencoder trained first with its own optimizer, then a
denoiser trained on its latents while the autoencoder stays frozen in eval
mode (correct: `ok`), and a second stage whose optimizer also updates the
autoencoder, so that its eval() each epoch leaves it trained in eval mode
(TL203: `expect`).
"""
import torch
import torch.nn.functional as F
from generative.networks.nets import AutoencoderKL, DiffusionModelUNet
from data import train_loader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

autoencoder = AutoencoderKL(spatial_dims=2).to(device)
unet = DiffusionModelUNet(spatial_dims=2).to(device)

ae_opt = torch.optim.Adam(autoencoder.parameters(), lr=1e-4)
for epoch in range(10):
    autoencoder.train()
    for batch in train_loader:
        images = batch["image"].to(device)
        ae_opt.zero_grad(set_to_none=True)
        reconstruction, z_mu, z_sigma = autoencoder(images)
        F.l1_loss(reconstruction.float(), images.float()).backward()
        ae_opt.step()

optimizer = torch.optim.Adam(unet.parameters(), lr=1e-4)
for epoch in range(100):
    unet.train()
    # ok: TL203
    autoencoder.eval()
    for batch in train_loader:
        images = batch["image"].to(device)
        optimizer.zero_grad(set_to_none=True)
        with torch.no_grad():
            z = autoencoder.encode_stage_2_inputs(images)
        noise = torch.randn_like(z)
        F.mse_loss(unet(z + noise).float(), noise.float()).backward()
        optimizer.step()

joint_opt = torch.optim.Adam(list(unet.parameters()) + list(autoencoder.parameters()), lr=1e-5)
for epoch in range(10):
    unet.train()
    # expect: TL203
    autoencoder.eval()
    for batch in train_loader:
        images = batch["image"].to(device)
        joint_opt.zero_grad(set_to_none=True)
        z = autoencoder.encode_stage_2_inputs(images)
        noise = torch.randn_like(z)
        F.mse_loss(unet(z + noise).float(), noise.float()).backward()
        joint_opt.step()
