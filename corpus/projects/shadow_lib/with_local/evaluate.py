def load(model):
    model.eval()
    return model
