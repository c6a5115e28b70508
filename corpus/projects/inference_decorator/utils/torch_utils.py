import functools

import torch


def smart_inference_mode(new_torch=True):
    """A decorator factory: inference mode where it exists, else no_grad."""

    def decorate(fn):
        return (torch.inference_mode if new_torch else torch.no_grad)()(fn)

    return decorate


def plain_decorator():
    """A decorator factory that only logs: gradients stay on."""

    def decorate(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            print("calling", fn.__name__)
            return fn(*args, **kwargs)

        return wrapper

    return decorate
