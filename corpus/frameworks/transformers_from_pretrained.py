"""transformers' `from_pretrained` returns the model in eval mode (it calls
`model.eval()`): a forward of it with gradients on records a graph that no
backward uses. The table says so (set eval-mode); the analyzer does not
follow that mode yet, it reads modes from the code's own `.eval()` and
`.train()` calls."""
import torch
from transformers import AutoModelForSequenceClassification


def predict(loader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    preds = []
    for batch in loader:
        # todo-expect: TL102
        logits = model(**batch).logits
        preds.append(logits.argmax(-1))
    return preds


def predict_explicit(loader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    model.eval()
    preds = []
    for batch in loader:
        # expect: TL102
        logits = model(**batch).logits
        preds.append(logits.argmax(-1))
    return preds


def predict_ok(loader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    preds = []
    with torch.no_grad():
        for batch in loader:
            # ok: TL102
            logits = model(**batch).logits
            preds.append(logits.argmax(-1))
    return preds
