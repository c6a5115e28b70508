"""transformers' `from_pretrained` returns the model in eval mode (it calls
`model.eval()`): a forward of it with gradients on records a graph that no
backward uses. The table says so (set eval-mode) and the model's module
modes follow it, but TL102 does not read them yet (a todo-expect)."""
import torch
from transformers import AutoModelForSequenceClassification


def predict(loader):
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    preds = []
    for batch in loader:
        # expect: TL102
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


def predict_train_mode(loader):
    # dropout on on purpose (Monte Carlo sampling): `.train()` undoes the
    # eval mode `from_pretrained` left
    model = AutoModelForSequenceClassification.from_pretrained("bert-base-uncased")
    model.train()
    preds = []
    for batch in loader:
        # ok: TL102
        logits = model(**batch).logits
        preds.append(logits.argmax(-1))
    return preds
