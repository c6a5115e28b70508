import torch


def logits_of(model, batch):
    # ok: TL102
    return model(batch)


def score_batch(model, batch):
    model.eval()
    # ok: TL102
    preds = model(batch).argmax(1)
    return preds.tolist(), logits_of(model, batch).max().item()


def score_remote(model, batch):
    model.eval()
    # ok: TL102
    preds = model(batch).argmax(1)
    return preds.tolist()


def score_mixed(model, batch):
    model.eval()
    # expect: TL102
    preds = model(batch).argmax(1)
    return preds.tolist()


@torch.no_grad()
def report(model, batches):
    return [(score_batch(model, b), score_mixed(model, b)) for b in batches]
