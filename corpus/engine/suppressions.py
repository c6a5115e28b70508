"""Suppressions: `# noqa` comments hide findings on their line or on the
first line of the statement holding them; TL001 (opt-in, selected in the
corpus run) reports torchlint codes in directives that hide nothing. A
blanket `# noqa` and other tools' codes (`# noqa: E501`, `# noqa B950`)
belong to flake8, ruff or pylint as well: TL001 leaves them alone."""
import torch
import torch.nn as nn


def suppressed_by_code(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    losses = []
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        # ok: TL201, TL001
        opt.step()  # noqa: TL201
        # ok: TL101, TL001
        losses.append(loss)  # noqa
    return losses


def suppressed_on_statement_start(model, loader):
    model.eval()
    for x in loader:
        # ok: TL001
        out = (  # noqa: TL102 -- the forward is on the next line
            # ok: TL102
            model(x))
        print(out.argmax(1))


def unused_directives(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    for x, y in loader:
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        # expect: TL001
        opt.step()  # noqa: TL201
        # ok: TL001
        print(loss.item())  # noqa
        # ok: TL001
        print(loss.item(), "a long line that flake8-bugbear measures")  # noqa B950
        # ok: TL001
        print(loss.item())  # noqa: E501, F401


def partly_used(model, loader):
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    crit = nn.CrossEntropyLoss()
    for x, y in loader:
        loss = crit(model(x), y)
        loss.backward()
        # expect: TL001
        opt.step()  # noqa: TL201, TL102
