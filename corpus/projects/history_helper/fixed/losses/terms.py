def weighted(pred, weight):
    return pred.detach() * weight
