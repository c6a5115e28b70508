"""DCGAN-style image GAN with two models and two optimizers (corpus script).

A generator and a discriminator trained in alternation with their own Adam
optimizers, BCE-with-logits losses, optional extra discriminator steps per
batch, periodic sample grids, latent interpolation and checkpoint/resume.
Pitfalls with `expect` annotations: the extra discriminator steps never reset
the discriminator's gradients between steps (TL201), the generator loss
tensor kept in the loss history (TL101), and the periodic sample grid
computed after netG.eval() without no_grad (TL102). Correct spots that look
similar carry `ok` annotations.
"""
import argparse
import os
import random

import torch
import torchvision.datasets as dset
import torchvision.transforms as transforms
import torchvision.utils as vutils
from torch import nn, optim


def parse_args():
    p = argparse.ArgumentParser(description="DCGAN-style training")
    p.add_argument("--dataroot", required=True)
    p.add_argument("--out", default="./runs/gan")
    p.add_argument("--image-size", type=int, default=64)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--ngf", type=int, default=64)
    p.add_argument("--ndf", type=int, default=64)
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--beta1", type=float, default=0.5)
    p.add_argument("--d-steps", type=int, default=1, help="discriminator updates per generator update")
    p.add_argument("--sample-every", type=int, default=500)
    p.add_argument("--seed", type=int, default=999)
    p.add_argument("--resume", default="")
    return p.parse_args()


def init_weights(module):
    if isinstance(module, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(module.weight, mean=0.0, std=0.02)
    elif isinstance(module, nn.BatchNorm2d):
        nn.init.normal_(module.weight, mean=1.0, std=0.02)
        nn.init.zeros_(module.bias)


def up_block(c_in, c_out):
    return [nn.ConvTranspose2d(c_in, c_out, 4, 2, 1, bias=False), nn.BatchNorm2d(c_out), nn.ReLU(inplace=True)]


def down_block(c_in, c_out, norm=True):
    layers = [nn.Conv2d(c_in, c_out, 4, 2, 1, bias=False)]
    if norm:
        layers.append(nn.BatchNorm2d(c_out))
    layers.append(nn.LeakyReLU(0.2, inplace=True))
    return layers


class Generator(nn.Module):
    def __init__(self, nz, ngf, channels=3):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(inplace=True),
            *up_block(ngf * 8, ngf * 4),
            *up_block(ngf * 4, ngf * 2),
            *up_block(ngf * 2, ngf),
            nn.ConvTranspose2d(ngf, channels, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    """Ends in a raw logit; the loss is BCEWithLogitsLoss."""

    def __init__(self, ndf, channels=3):
        super().__init__()
        self.net = nn.Sequential(
            *down_block(channels, ndf, norm=False),
            *down_block(ndf, ndf * 2),
            *down_block(ndf * 2, ndf * 4),
            *down_block(ndf * 4, ndf * 8),
            nn.Conv2d(ndf * 8, 1, 4, 1, 0, bias=False),
        )

    def forward(self, x):
        return self.net(x).view(-1)


@torch.no_grad()
def interpolate_latents(netG, nz, steps, device):
    netG.eval()
    a = torch.randn(1, nz, 1, 1, device=device)
    b = torch.randn(1, nz, 1, 1, device=device)
    alphas = torch.linspace(0.0, 1.0, steps, device=device).view(-1, 1, 1, 1)
    # ok: TL102
    frames = netG((1.0 - alphas) * a + alphas * b)
    netG.train()
    return frames


def main():
    args = parse_args()
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    dataset = dset.ImageFolder(
        root=args.dataroot,
        transform=transforms.Compose([
            transforms.Resize(args.image_size),
            transforms.CenterCrop(args.image_size),
            transforms.ToTensor(),
            transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
        ]),
    )
    loader = torch.utils.data.DataLoader(
        dataset, batch_size=args.batch_size, shuffle=True, num_workers=4, pin_memory=True, drop_last=True
    )

    netG = Generator(args.nz, args.ngf).to(device)
    netD = Discriminator(args.ndf).to(device)
    netG.apply(init_weights)
    netD.apply(init_weights)
    criterion = nn.BCEWithLogitsLoss()
    optimizerD = optim.Adam(netD.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    optimizerG = optim.Adam(netG.parameters(), lr=args.lr, betas=(args.beta1, 0.999))
    fixed_noise = torch.randn(64, args.nz, 1, 1, device=device)

    start_epoch = 0
    if args.resume:
        state = torch.load(args.resume, map_location=device, weights_only=True)
        netG.load_state_dict(state["netG"])
        netD.load_state_dict(state["netD"])
        optimizerG.load_state_dict(state["optimizerG"])
        optimizerD.load_state_dict(state["optimizerD"])
        start_epoch = state["epoch"] + 1

    G_losses, D_losses, img_list = [], [], []
    for epoch in range(start_epoch, args.epochs):
        for i, (real, _) in enumerate(loader):
            real = real.to(device)
            b = real.size(0)
            real_labels = torch.full((b,), 0.9, device=device)
            fake_labels = torch.zeros(b, device=device)

            # (1) discriminator: real images towards 0.9, generated ones towards 0
            netD.zero_grad()
            for _ in range(args.d_steps):
                # expect: TL307
                noise = torch.randn(b, args.nz, 1, 1, device=device)
                fake = netG(noise)
                errD_real = criterion(netD(real), real_labels)
                errD_fake = criterion(netD(fake.detach()), fake_labels)
                errD = errD_real + errD_fake
                errD.backward()
                # expect: TL201
                optimizerD.step()

            # (2) generator: make the discriminator call the fakes real
            netG.zero_grad()
            output = netD(fake)
            errG = criterion(output, torch.ones(b, device=device))
            errG.backward()
            # ok: TL201
            optimizerG.step()
            # expect: TL304
            D_G_z = torch.sigmoid(output.detach()).mean().item()

            # ok: TL101
            # expect: TL304
            D_losses.append(errD.item())
            # expect: TL101
            G_losses.append(errG)

            if i % 50 == 0:
                print(
                    f"[{epoch}/{args.epochs}][{i}/{len(loader)}] "
                    f"loss_D {errD.item():.4f} loss_G {errG.item():.4f} D(G(z)) {D_G_z:.4f}"
                )
            if i % args.sample_every == 0:
                netG.eval()
                # expect: TL102
                samples = netG(fixed_noise)
                # ok: TL101
                img_list.append(vutils.make_grid(samples.detach().cpu(), padding=2, normalize=True))
                netG.train()

        netG.eval()
        with torch.no_grad():
            # ok: TL102
            final = netG(fixed_noise)
        netG.train()
        # ok: TL101
        img_list.append(vutils.make_grid(final.cpu(), padding=2, normalize=True))
        vutils.save_image(final, os.path.join(args.out, f"fake_epoch_{epoch:03d}.png"), normalize=True)
        torch.save(
            {"netG": netG.state_dict(), "netD": netD.state_dict(),
             "optimizerG": optimizerG.state_dict(), "optimizerD": optimizerD.state_dict(), "epoch": epoch},
            os.path.join(args.out, "checkpoint.pt"),
        )

    frames = interpolate_latents(netG, args.nz, steps=16, device=device)
    vutils.save_image(frames, os.path.join(args.out, "interpolation.png"), nrow=16, normalize=True)
    torch.save({"G": [g.item() for g in G_losses], "D": D_losses}, os.path.join(args.out, "losses.pt"))


if __name__ == "__main__":
    main()
