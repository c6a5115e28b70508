from models import create_model


def main(opt, loader):
    model = create_model(opt)
    for epoch in range(opt.epochs):
        for x, y in loader:
            model.optimizer.zero_grad()
            model.step_once(x, y)
