import torch

from vocoder import Vocoder, builders, zoo
from vocoder.net import Speaker


def build(cfg):
    return getattr(builders, cfg.arch)(channels=cfg.channels)


def listen(cfg, x):
    model = build(cfg).to(cfg.device)
    model.eval()
    # expect: TL102
    return model.generate(x, 100)


def listen_quietly(cfg, x):
    model = build(cfg).to(cfg.device)
    model.eval()
    with torch.no_grad():
        # ok: TL102
        return model.generate(x, 100)


def listen_zoo(cfg, x):
    # zoo.py has two builders, one of them no Vocoder
    model = getattr(zoo, cfg.arch)(channels=cfg.channels)
    model.eval()
    # ok: TL102
    return model.generate(x, 100)


def render(model, x):
    model.eval()
    # expect: TL102
    return model.generate(x, 50)


def render_deep(model, x):
    model.eval()
    # expect: TL102
    return model.generate(x, 50)


def render_through(model, x):
    return render_deep(model, x)


def render_checked(model, x):
    model.eval()
    with torch.inference_mode():
        # ok: TL102
        return model.generate(x, 50)


def render_any(model, x):
    model.eval()
    # one caller passes a Vocoder, the other a module of unknown class
    # ok: TL102
    return model.generate(x, 50)


def speaker_voice(ids):
    speaker = Speaker(4)
    speaker.eval()
    # expect: TL102
    return speaker.voice(ids)


def speaker_voice_no_grad(ids):
    speaker = Speaker(4)
    speaker.eval()
    with torch.no_grad():
        # ok: TL102
        return speaker.voice(ids)


def probe(fn, x):
    with torch.no_grad():
        return fn(x)


def main(cfg, x):
    model = build(cfg).to(cfg.device)
    render(model, x)
    render_through(model, x)
    render_checked(model, x)
    render_any(model, x)
    render_any(torch.hub.load("org/repo", "vocoder"), x)


demo = Vocoder(8)
demo.eval()
# the lambda runs inside probe's no_grad block
# ok: TL102
frames = probe(lambda v: demo.generate(v, 2), torch.zeros(1, 8, 4))


if __name__ == "__main__":
    main(None, torch.zeros(1, 16, 8))
