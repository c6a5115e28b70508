from models import create_model


def main(opt, loader):
    model = create_model(opt)
    for epoch in range(opt.epochs):
        for data in loader:
            model.set_input(data)
            model.optimize_parameters()
