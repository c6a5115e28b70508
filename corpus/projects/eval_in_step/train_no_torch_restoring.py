from models import RestoringModel


def main(opt, loader):
    # Its step sets train mode again; no torch import here either.
    model = RestoringModel(opt)
    for x in loader:
        # ok: TL203
        model.optimize_parameters(x)
