from models import RestoringModel


def main(opt, loader):
    model = RestoringModel(opt)
    for x in loader:
        # ok: TL203
        model.optimize_parameters(x)
