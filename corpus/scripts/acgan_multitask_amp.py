"""Auxiliary-classifier GAN with mixed precision and a multi-task discriminator (corpus script).

A conditional generator and a discriminator with two heads (real/fake and
class), trained in alternation under bf16/fp16 autocast with one GradScaler,
plus an encoder/decoder consistency stage with its own pair of optimizers,
periodic sample grids and an FID-style feature check. Pitfalls with `expect`
annotations: the discriminator's real/fake head is a sigmoid fed to BCELoss
inside autocast, where PyTorch refuses it (TL209); its class head ends in
nn.Softmax and feeds CrossEntropyLoss (TL208); the generator's step bypasses
the scaler after a scaled backward (TL205); the consistency stage resets only
the decoder's optimizer (TL201) and, in its second variant, clears the
gradients between backward and step (TL202); the sample grid switches the
generator to eval mode inside the training loop for good (TL203); a buffer
of noise is "moved" without keeping the result (TL206). Correct spots that
look similar carry `ok` annotations: the auxiliary loss on logits in the
fixed discriminator, the documented multi-task `retain_graph=True`, one
`scaler.update()` after two scaler steps, and the teacher network kept in
eval mode.
"""
import argparse
import os

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision.utils as vutils
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


class Generator(nn.Module):
    def __init__(self, nz=100, n_classes=10, ngf=64):
        super().__init__()
        self.label_emb = nn.Embedding(n_classes, nz)
        self.net = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, 1, 4, 2, 3, bias=False), nn.Tanh(),
        )

    def forward(self, z, labels):
        h = z * self.label_emb(labels)
        return self.net(h.view(h.size(0), -1, 1, 1))


class Discriminator(nn.Module):
    """Two heads: real/fake probability and class probabilities (the published layout)."""

    def __init__(self, n_classes=10, ndf=64):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1), nn.BatchNorm2d(ndf * 2), nn.LeakyReLU(0.2, True),
            nn.Flatten(),
        )
        self.adv_head = nn.Sequential(nn.Linear(ndf * 2 * 7 * 7, 1), nn.Sigmoid())
        self.aux_head = nn.Sequential(nn.Linear(ndf * 2 * 7 * 7, n_classes), nn.Softmax(dim=1))

    def forward(self, img):
        h = self.body(img)
        return self.adv_head(h).view(-1), self.aux_head(h)


class LogitDiscriminator(nn.Module):
    """The fixed layout: both heads return logits."""

    def __init__(self, n_classes=10, ndf=64):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(1, ndf, 4, 2, 1), nn.LeakyReLU(0.2, True), nn.Flatten())
        self.adv_head = nn.Linear(ndf * 14 * 14, 1)
        self.aux_head = nn.Linear(ndf * 14 * 14, n_classes)

    def forward(self, img):
        h = self.body(img)
        return self.adv_head(h).view(-1), self.aux_head(h)


class Encoder(nn.Module):
    def __init__(self, nz=100):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 256), nn.ReLU(), nn.Linear(256, nz))

    def forward(self, x):
        return self.net(x)


def parse_args():
    p = argparse.ArgumentParser(description="AC-GAN with AMP")
    p.add_argument("--data", default="./data")
    p.add_argument("--out", default="./runs/acgan")
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--nz", type=int, default=100)
    p.add_argument("--lr", type=float, default=2e-4)
    p.add_argument("--sample-every", type=int, default=500)
    p.add_argument("--aux-weight", type=float, default=1.0)
    return p.parse_args()


def sample_grid(netG, fixed_z, fixed_labels, path):
    netG.eval()
    with torch.no_grad():
        fake = netG(fixed_z, fixed_labels)
    vutils.save_image(fake, path, normalize=True, nrow=10)


def train_acgan(netG, netD, loader, args, device):
    optG = torch.optim.Adam(netG.parameters(), lr=args.lr, betas=(0.5, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=args.lr, betas=(0.5, 0.999))
    scaler = torch.amp.GradScaler("cuda")
    adversarial_loss = nn.BCELoss()
    auxiliary_loss = nn.CrossEntropyLoss()
    fixed_z = torch.randn(100, args.nz, device=device)
    fixed_labels = torch.arange(10, device=device).repeat_interleave(10)
    step = 0
    for epoch in range(args.epochs):
        netG.train()
        for imgs, labels in loader:
            imgs, labels = imgs.to(device), labels.to(device)
            b = imgs.size(0)
            valid = torch.ones(b, device=device)
            fake_t = torch.zeros(b, device=device)

            optD.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                real_pred, real_aux = netD(imgs)
                z = torch.randn(b, args.nz, device=device)
                gen_labels = torch.randint(0, 10, (b,), device=device)
                gen_imgs = netG(z, gen_labels)
                fake_pred, _ = netD(gen_imgs.detach())
                # expect: TL209
                d_adv = adversarial_loss(real_pred, valid) + adversarial_loss(fake_pred, fake_t)
                # expect: TL208
                d_aux = auxiliary_loss(real_aux, labels)
                d_loss = d_adv + args.aux_weight * d_aux
            scaler.scale(d_loss).backward()
            # ok: TL204, TL205
            scaler.step(optD)

            optG.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.float16):
                validity, pred_label = netD(gen_imgs)
                # expect: TL209
                g_loss = adversarial_loss(validity, valid)
                # expect: TL208
                g_loss = g_loss + args.aux_weight * auxiliary_loss(pred_label, gen_labels)
            scaler.scale(g_loss).backward()
            # expect: TL205
            optG.step()
            scaler.update()

            if step % args.sample_every == 0:
                # expect: TL203
                sample_grid(netG, fixed_z, fixed_labels, os.path.join(args.out, f"step{step}.png"))
            step += 1
        torch.save({"netG": netG.state_dict(), "netD": netD.state_dict()}, os.path.join(args.out, "last.pt"))


def train_fixed(netG, netD, loader, args, device):
    """The corrected recipe: logits heads, BCE with logits, both steps through the scaler."""
    optG = torch.optim.Adam(netG.parameters(), lr=args.lr, betas=(0.5, 0.999))
    optD = torch.optim.Adam(netD.parameters(), lr=args.lr, betas=(0.5, 0.999))
    scaler = torch.amp.GradScaler("cuda")
    fixed_z = torch.randn(100, args.nz, device=device)
    fixed_labels = torch.arange(10, device=device).repeat_interleave(10)
    for epoch in range(args.epochs):
        for i, (imgs, labels) in enumerate(loader):
            imgs, labels = imgs.to(device), labels.to(device)
            b = imgs.size(0)
            optD.zero_grad(set_to_none=True)
            optG.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                z = torch.randn(b, args.nz, device=device)
                gen_labels = torch.randint(0, 10, (b,), device=device)
                gen_imgs = netG(z, gen_labels)
                real_logit, real_aux = netD(imgs)
                fake_logit, fake_aux = netD(gen_imgs)
                # ok: TL209
                d_adv = F.binary_cross_entropy_with_logits(real_logit, torch.ones_like(real_logit))
                # ok: TL208
                d_aux = F.cross_entropy(real_aux, labels)
                g_adv = F.binary_cross_entropy_with_logits(fake_logit, torch.ones_like(fake_logit))
                g_aux = F.cross_entropy(fake_aux, gen_labels)
            # The discriminator's loss and the generator's loss share the fake batch's graph: the first
            # backward must keep it for the second.
            # ok: TL104
            scaler.scale(d_adv + d_aux).backward(retain_graph=True)
            scaler.step(optD)
            optG.zero_grad(set_to_none=True)
            scaler.scale(g_adv + g_aux).backward()
            # ok: TL205
            scaler.step(optG)
            scaler.update()
            if i % args.sample_every == 0:
                # ok: TL203
                sample_grid(netG, fixed_z, fixed_labels, os.path.join(args.out, f"fixed{i}.png"))
                netG.train()


def consistency_stage(netG, loader, args, device):
    """Encoder/decoder cycle: encode real images, decode them with the generator."""
    encoder = Encoder(args.nz).to(device)
    teacher = Encoder(args.nz).to(device)
    teacher.load_state_dict(torch.load(os.path.join(args.out, "teacher.pt"), weights_only=True))
    enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    dec_opt = torch.optim.Adam(netG.parameters(), lr=1e-5)
    noise_bank = torch.randn(1024, args.nz)
    # expect: TL206
    noise_bank.to(device)
    for imgs, labels in loader:
        imgs, labels = imgs.to(device), labels.to(device)
        # ok: TL203
        teacher.eval()
        with torch.no_grad():
            target_code = teacher(imgs)
        code = encoder(imgs)
        recon = netG(code, labels)
        loss = F.mse_loss(recon, imgs) + 0.1 * F.mse_loss(code, target_code)
        dec_opt.zero_grad()
        loss.backward()
        # expect: TL201
        enc_opt.step()
        # ok: TL201
        dec_opt.step()


def consistency_stage_swapped(netG, loader, args, device):
    encoder = Encoder(args.nz).to(device)
    enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-4)
    dec_opt = torch.optim.Adam(netG.parameters(), lr=1e-5)
    for imgs, labels in loader:
        imgs, labels = imgs.to(device), labels.to(device)
        # ok: TL202
        enc_opt.zero_grad()
        loss = F.mse_loss(netG(encoder(imgs), labels), imgs)
        loss.backward()
        # expect: TL202
        dec_opt.zero_grad()
        enc_opt.step()
        dec_opt.step()


def main():
    args = parse_args()
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda")
    tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.5,), (0.5,))])
    loader = DataLoader(datasets.MNIST(args.data, download=True, transform=tf), batch_size=args.batch_size,
                        shuffle=True, num_workers=4, pin_memory=True, drop_last=True)
    netG = Generator(args.nz).to(device)
    train_acgan(netG, Discriminator().to(device), loader, args, device)
    train_fixed(Generator(args.nz).to(device), LogitDiscriminator().to(device), loader, args, device)
    consistency_stage(netG, loader, args, device)
    consistency_stage_swapped(netG, loader, args, device)


if __name__ == "__main__":
    main()
