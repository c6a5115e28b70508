"""Two models a loader hands out as a tuple are two objects: switching one
leaves the mode recorded for the other as it is. A model read from a
registry may be any of them: switching it leaves the others' modes not
known."""
import torch
from zoo import load_pair, registry


def embed_all(cfg, args, images):
    encoder, decoder = load_pair(cfg, args.device)
    decoder.train()
    encoder.eval()

    def embed(batch):
        # expect: TL102
        return encoder(batch).detach().cpu().numpy()

    codes = []
    for batch in images:
        codes.append(embed(batch))
    return codes


def embed_all_registry(cfg, args, images):
    encoder, decoder = load_pair(cfg, args.device)
    encoder.eval()
    shared = registry[cfg.name]
    shared.train()

    def embed(batch):
        # ok: TL102
        return encoder(batch).detach().cpu().numpy()

    codes = []
    for batch in images:
        codes.append(embed(batch))
    return codes
