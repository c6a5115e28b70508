from models import GanModel


def main(opt, loader):
    model = GanModel(opt)
    for x in loader:
        # todo-expect: TL203
        model.optimize_parameters(x)
