"""Syntax errors: TL000 points at each, and the code that parses is still
analysed (the training loop after the broken function is flagged)."""
import torch


def broken(x):
    # expect: TL000
    return x +* 2


def broken_star(x):
    # A starred operand that is not valid Python either: still reported.
    # expect: TL000
    return x, *(x 2)


def train(model, loader, criterion):
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in loader:
        loss = criterion(model(x), y)
        loss.backward()
        # expect: TL201
        optimizer.step()


# One error, where the parser's recovery spans the lines after it (here up
# to an `except:` left without its `try:`): reported once, at the
# subscript that does not parse, not again at the end of the valid `if`
# line below it.
def caption_pairs(ds, seen, infer):
    for ann in ds:
        first = ann
        # expect: TL000
        for i, image_path in enumerate([ds.image_path(ann, 0), ds[.image_path(ann, 1)]]):
            if ann['ids'][i] in seen:
                continue
                with torch.no_grad():
                    seen[ann['ids'][i]] = infer(image_path, "describe the image", video=False)
            except:
                print(ann['paths'])
