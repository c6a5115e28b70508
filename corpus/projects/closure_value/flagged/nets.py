def get_model_fn(model, train=False):
    def model_fn(x, t):
        if not train:
            model.eval()
            # expect: TL102
            return model(x, t)
        model.train()
        return model(x, t)

    return model_fn
