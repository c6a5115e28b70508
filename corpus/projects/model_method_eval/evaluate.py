import torch

from nets.wavenet import WaveNet


def synthesize(model: WaveNet, x, steps):
    model.eval()
    # expect: TL102
    y_hat = model.incremental_forward(x, steps)
    return y_hat.cpu().numpy()


def scores(x):
    model = WaveNet(16)
    model.load_state_dict(torch.load("wavenet.pt", weights_only=True))
    model.eval()
    # expect: TL102
    return model.predict_scores(x).argmax(dim=1).tolist()


def synthesize_no_grad(model: WaveNet, x, steps):
    model.eval()
    with torch.no_grad():
        # ok: TL102
        y_hat = model.incremental_forward(x, steps)
    return y_hat.cpu().numpy()


def generate(model: WaveNet, x, steps):
    model.eval()
    # ok: TL102
    return model.generate(x, steps).cpu().numpy()


def sample(model: WaveNet, x):
    model.eval()
    # ok: TL102
    return model.sample(x).cpu().numpy()


def width(model: WaveNet):
    model.eval()
    # ok: TL102
    return model.num_channels()
