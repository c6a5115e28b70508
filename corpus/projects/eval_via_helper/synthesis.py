import torch
import torch.nn as nn

use_cuda = torch.cuda.is_available()


def tts(model, text):
    if use_cuda:
        model = model.cuda()
    model.eval()
    with torch.no_grad():
        return model(text)


def tts_restoring(model, text):
    model.eval()
    with torch.no_grad():
        out = model(text)
    model.train()
    return out


def tts_from_checkpoint(path, text):
    net = nn.Sequential(nn.Linear(8, 8), nn.Dropout(0.1))
    net.load_state_dict(torch.load(path, weights_only=True))
    net.eval()
    with torch.no_grad():
        return net(text)
