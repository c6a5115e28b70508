import torch as t


def no_grad_call(f):
    def new_f(*args, **kwargs):
        with t.no_grad():
            return f(*args, **kwargs)

    return new_f


def logged(f):
    def new_f(*args, **kwargs):
        print("calling", f.__name__)
        return f(*args, **kwargs)

    return new_f
