from models import create_model


def main(opt, loader):
    model = create_model(opt)
    for x in loader:
        # expect: TL203
        model.optimize_parameters(x)
