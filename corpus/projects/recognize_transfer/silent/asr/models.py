import torch
from torch import nn


class Listener(nn.Module):
    def __init__(self, input_dim, hidden_dim):
        super().__init__()
        self.rnn = nn.LSTM(input_dim, hidden_dim, batch_first=True, bidirectional=True)
        self.dropout = nn.Dropout(0.3)

    def forward(self, inputs, input_lengths):
        outputs, _ = self.rnn(inputs)
        return self.dropout(outputs)


class Speller(nn.Module):
    def __init__(self, num_classes, hidden_dim):
        super().__init__()
        self.fc = nn.Linear(hidden_dim * 2, num_classes)

    def forward(self, encoder_outputs):
        return self.fc(encoder_outputs)

    def decode(self, encoder_outputs):
        return self.forward(encoder_outputs).argmax(dim=-1)


class BaseModel(nn.Module):
    @torch.no_grad()
    def recognize(self, inputs, input_lengths):
        raise NotImplementedError


class ListenAttendSpell(BaseModel):
    def __init__(self, input_dim, num_classes, hidden_dim=256):
        super().__init__()
        self.encoder = Listener(input_dim, hidden_dim)
        self.decoder = Speller(num_classes, hidden_dim)

    def forward(self, inputs, input_lengths):
        return self.decoder(self.encoder(inputs, input_lengths))

    @torch.no_grad()
    def recognize(self, inputs, input_lengths):
        encoder_outputs = self.encoder(inputs, input_lengths)
        return self.decoder.decode(encoder_outputs)


class SpeechTransformer(BaseModel):
    def __init__(self, input_dim, num_classes, hidden_dim=256):
        super().__init__()
        layer = nn.TransformerEncoderLayer(input_dim, 4, hidden_dim, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2)
        self.fc = nn.Linear(input_dim, num_classes)

    def forward(self, inputs, input_lengths):
        return self.fc(self.encoder(inputs))

    @torch.no_grad()
    def recognize(self, inputs, input_lengths):
        return self.forward(inputs, input_lengths).argmax(dim=-1)


MODELS = {"las": ListenAttendSpell, "transformer": SpeechTransformer}


def build_model(name, input_dim, num_classes):
    return MODELS[name](input_dim, num_classes)
