def weighted(pred, weight):
    return pred * weight
